import { addContact, createUser, findUser } from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expect, type Page, test } from "../support/test";
import { signUp } from "./sign-up";

const SCREENSHOTS = "test-results/screenshots";

/** The page never scrolls sideways (a phone must not). */
async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

test("a person emails an agent; the agent reads it over the API and replies; the reply appears live", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({
    name: "Inbox Helper",
    scopes: ["messages:read", "messages:write", "emails:read", "emails:write"],
  });
  const api = agentApi(request, auth);
  await signUp(page, "Ellis Email");
  const me = await findUser(deps(), (await page.getByTestId("whoami-num").textContent()) ?? "");
  await addContact(deps(), me.id, agent.id, ["emails:read", "emails:write"]);

  // Compose to the agent, picked from the person's own agents.
  await page.getByTestId("nav-inbox").click();
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(page.getByTestId("inbox-empty")).toBeVisible();
  await expect(page.getByTestId("live-status")).toHaveText("live");
  await page.getByTestId("inbox-compose").click();
  await page.getByTestId("compose-add-agent").filter({ hasText: "Inbox Helper" }).click();
  await expect(page.getByTestId("compose-to")).toHaveValue(agent.num);
  await page.getByTestId("compose-subject").fill("Flights to Lisbon");
  await page.getByTestId("compose-content").fill("Find me a morning flight on the 12th, please.");
  await page.getByTestId("compose-send").click();
  await expect(page).toHaveURL(/\/inbox\/eth_\w+$/);
  const threadId = page.url().split("/").at(-1) as string;
  await expect(page.getByTestId("thread-subject")).toHaveText("Flights to Lisbon");
  await expect(page.getByTestId("email-message")).toHaveCount(1);
  await expect(page.getByTestId("email-message").first()).toHaveAttribute("data-sender", "me");
  // Times read as a chat app writes them, with the full local time on hover.
  for (const time of [
    page.getByTestId("email-message").first().getByTestId("relative-time"),
    page.getByTestId("inbox-thread").first().getByTestId("relative-time"),
  ]) {
    await expect(time).toHaveText(/^(now|\d+ min|\d\d:\d\d)$/);
    await expect(time).toHaveAttribute("title", /\d{4}/);
  }

  // The agent hears of it, opens the thread (marking it read) and replies.
  const updates = await (await api.get("/updates?afterSeq=0&wait=5")).json();
  const received = updates.events.find((e: { type: string }) => e.type === "email.received");
  expect(received.payload).toMatchObject({
    threadId,
    subject: "Flights to Lisbon",
    from: { id: me.id },
    email: { content: "Find me a morning flight on the 12th, please." },
  });
  const opened = await (await api.get(`/emails/${threadId}`)).json();
  expect(opened.messages).toHaveLength(1);
  expect(opened.thread.unreadCount).toBe(0);
  const reply = await api.post(`/emails/${threadId}/messages`, {
    content: "TAP 1357 leaves at 07:40. Shall I book it?",
  });
  expect(reply.status()).toBe(201);

  // The reply shows up in the open thread without a reload, and the thread stays read.
  const last = page.getByTestId("email-message").last();
  await expect(last).toContainText("TAP 1357 leaves at 07:40");
  await expect(last).toHaveAttribute("data-sender", "agent");
  await expect(page.getByTestId("inbox-thread")).toHaveCount(1);
  await expect(page.getByTestId("inbox-unread")).toHaveCount(0);

  // The person answers from the reply box; the agent hears that too.
  await page.getByTestId("reply-text").fill("Yes, book it.");
  await page.getByTestId("reply-send").click();
  await expect(page.getByTestId("email-message")).toHaveCount(3);
  await expect(page.getByTestId("reply-text")).toHaveValue("");
  const later = await (await api.get(`/updates?afterSeq=${updates.nextSeq}&wait=5`)).json();
  expect(
    later.events.map((e: { payload: { email: { content: string } } }) => e.payload.email.content),
  ).toEqual(["Yes, book it."]);

  await page.screenshot({ path: `${SCREENSHOTS}/inbox-thread-1280.png` });
  await expectNoSidewaysScroll(page);

  // A new thread from the agent arrives in the list live, with its unread count.
  await page.getByTestId("nav-inbox").click();
  await expect(page).toHaveURL(/\/inbox$/);
  const started = await api.post("/emails", {
    to: me.num,
    subject: "Your boarding pass",
    content: "Attached below as text: seat 14A.",
  });
  expect(started.status()).toBe(201);
  const row = page.getByTestId("inbox-thread").first();
  await expect(row).toContainText("Your boarding pass");
  await expect(row.getByTestId("inbox-unread")).toHaveText("1");
  await row.click();
  await expect(page.getByTestId("email-message")).toContainText("seat 14A");
  await expect(page.getByTestId("inbox-unread")).toHaveCount(0);
});

test("a person writes to several at once (a group thread); the inbox fits a phone", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({
    name: "Group Agent",
    scopes: ["emails:read", "emails:write"],
  });
  const friend = await createUser(deps(), { displayName: "Fran Friend" });
  await signUp(page, "Gale Group");
  const me = await findUser(deps(), (await page.getByTestId("whoami-num").textContent()) ?? "");
  await addContact(deps(), me.id, agent.id, ["emails:read", "emails:write"]);

  await page.goto("/inbox/new");
  await page.getByTestId("compose-to").fill(`${agent.num}, ${friend.num}`);
  await page.getByTestId("compose-subject").fill("Team lunch on Friday");
  await page
    .getByTestId("compose-content")
    .fill("Shall we meet at noon? A long line to check wrapping: ".concat("x".repeat(120)));
  await expect(page.getByTestId("compose-send")).toHaveText("Send to the group");
  await page.getByTestId("compose-send").click();
  await expect(page).toHaveURL(/\/inbox\/eth_\w+$/);
  const threadId = page.url().split("/").at(-1) as string;
  await expect(page.getByTestId("thread-participants")).toContainText("Group with");
  await expect(page.getByTestId("thread-participants")).toContainText("Fran Friend");
  await expect(page.getByTestId("inbox-thread-subject")).toContainText("group");

  // A group is not for the Agent API to open, so the agent is not told of it (decision 0039).
  const api = agentApi(request, auth);
  const updates = await (await api.get("/updates?afterSeq=0")).json();
  expect(updates.events.map((e: { type: string }) => e.type)).not.toContain("email.received");
  expect((await api.get(`/emails/${threadId}`)).status()).toBe(400);

  // Bad input is explained at the field.
  await page.goto("/inbox/new");
  await page.getByTestId("compose-to").fill("800-000-000");
  await page.getByTestId("compose-subject").fill("Nobody");
  await page.getByTestId("compose-content").fill("Hello?");
  await page.getByTestId("compose-send").click();
  await expect(page.getByTestId("compose-error")).toBeVisible();

  // On a phone: the list alone, then the thread alone with a way back; never sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/inbox");
  await expect(page.getByTestId("inbox-thread")).toHaveCount(1);
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: `${SCREENSHOTS}/inbox-list-390.png`, fullPage: true });
  await page.getByTestId("inbox-thread").click();
  await expect(page.getByTestId("thread-subject")).toHaveText("Team lunch on Friday");
  await expect(page.getByTestId("inbox-threads")).toBeHidden();
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: `${SCREENSHOTS}/inbox-thread-390.png`, fullPage: true });
  await page.goto("/inbox/new");
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: `${SCREENSHOTS}/inbox-compose-390.png`, fullPage: true });
});
