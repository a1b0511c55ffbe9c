import {
  addContact,
  createAgent,
  createUser,
  pauseAgent,
  sendAgentMessage,
  sendPersonMessage,
} from "@switchboard/core";
import { deps, newAgent } from "../support/fixtures";
import { expect, type Page, test } from "../support/test";
import { dropSession, signUp, uniqueEmail } from "./sign-up";

/** The person's number, as the console shows it. */
const myNum = async (page: Page) =>
  (await page.getByTestId("whoami-num").textContent())?.trim() as string;

test("offline, the console says so truthfully and queues what the person writes", async ({
  page,
  context,
  request,
}) => {
  const { agent, auth } = await newAgent({ name: "Patient Bot" });
  await signUp(page, "Otis Offline");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  await expect(page.getByTestId("live-status")).toHaveText("live");
  await expect(page.getByTestId("connection-banner")).toHaveText("");

  await context.setOffline(true);
  await expect(page.getByTestId("connection-banner")).toContainText("You're offline");
  await expect(page.getByTestId("live-status")).toHaveText("offline");
  await page.getByTestId("composer-text").fill("Written on the train");
  await page.keyboard.press("Enter");
  const queued = page.getByTestId("queued-message");
  await expect(queued).toHaveText(/Written on the train.*Queued/);
  await expect(page.getByTestId("composer-error")).toHaveCount(0);

  // Back online: it goes out by itself, once, and the banner goes away.
  await context.setOffline(false);
  await expect(page.getByTestId("connection-banner")).toHaveText("", { timeout: 15_000 });
  await expect(queued).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId("chat-message").last()).toContainText("Written on the train");
  const updates = await (
    await request.get("/api/agent/v1/updates?afterSeq=0&wait=5", { headers: auth })
  ).json();
  const sent = updates.events.filter(
    (e: { type: string; payload: { message?: { content?: string } } }) =>
      e.type === "message.received" && e.payload.message?.content === "Written on the train",
  );
  expect(sent).toHaveLength(1);
});

test("links in messages open safely; other schemes stay text", async ({ page }) => {
  const { agent } = await newAgent({ name: "Link Bot" });
  await signUp(page, "Lina Links");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  await sendAgentMessage(
    deps(),
    { agentId: agent.id },
    {
      conversationId,
      type: "text",
      content:
        "Menu: https://example.com/menu?day=fri. Not this: javascript:alert(1) nor data:text/html,hi",
    },
  );
  const bubble = page.getByTestId("chat-message").last();
  const link = bubble.getByRole("link");
  await expect(link).toHaveCount(1);
  await expect(link).toHaveText("https://example.com/menu?day=fri");
  await expect(link).toHaveAttribute("href", "https://example.com/menu?day=fri");
  await expect(link).toHaveAttribute("rel", "noopener noreferrer nofollow");
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(bubble).toContainText("javascript:alert(1) nor data:text/html,hi");
});

test("agent lookup takes the number as people type it", async ({ page }) => {
  const { agent } = await newAgent({ name: "Number Bot" });
  await signUp(page, "Nico Numbers");
  await page.getByTestId("chat-add").click();
  await expect(page.getByRole("heading", { name: "Add an agent" })).toBeVisible();
  for (const typed of [
    agent.num.replaceAll("-", ""),
    ` ${agent.num} `,
    agent.num.replaceAll("-", " "),
  ]) {
    await page.getByTestId("find-agent-number").fill(typed);
    await page.getByTestId("find-agent-submit").click();
    await expect(page.getByTestId("consent-agent-name")).toHaveText("Number Bot");
    await expect(page).toHaveURL(`/chats/add?agent=${agent.num}`);
  }
  // A number typed into the address works too.
  await page.goto(`/chats/add?agent=${agent.num.replaceAll("-", "")}`);
  await expect(page.getByTestId("consent-agent-name")).toHaveText("Number Bot");
});

test("the chat header tells who the agent is and when it cannot answer", async ({ page }) => {
  const owner = await signUpOwnerElsewhere();
  await signUp(page, "Hana Header");
  const me = await myNum(page);
  await addContact(deps(), me, owner.agent.id, ["messages:read", "messages:write"]);
  await page.goto("/chats");
  await page.getByTestId("chat-row").click();
  await expect(page.getByTestId("chat-agent-owner")).toHaveText("· by Oscar Owner");
  await expect(page.getByTestId("chat-agent-bio")).toHaveText(
    "Answers questions about opening hours.",
  );
  await expect(page.getByTestId("chat-agent-state")).toHaveCount(0);
  await pauseAgent(deps(), owner.agent.id);
  await page.reload();
  await expect(page.getByTestId("chat-agent-state")).toHaveText(
    "Paused: it won't answer until its owner resumes it.",
  );
  await expect(page.getByTestId("chat-agent-paused")).toHaveText("paused");
});

async function signUpOwnerElsewhere() {
  const owner = await createUser(deps(), { displayName: "Oscar Owner" });
  const agent = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: "Opening Hours",
    bio: "Answers questions about opening hours.",
    requestedScopes: ["messages:read", "messages:write", "tasks:write", "notes:read"],
  });
  return { owner, agent };
}

test("acting without asking is offered only for create skills the agent asked for and was granted", async ({
  page,
}) => {
  const { agent } = await signUpOwnerElsewhere();
  await signUp(page, "Ava Auto");
  const me = await myNum(page);
  // It asks for tasks:write and notes:read; the person grants tasks:write only at first.
  const { conversationId } = await addContact(deps(), me, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  await page.goto(`/chats/${conversationId}`);
  await page.getByTestId("chat-settings-toggle").click();
  const panel = page.getByTestId("chat-settings");
  await expect(panel.getByTestId("auto-execute-none")).toBeVisible();
  await panel.getByTestId("grant-tasks:write").check();
  await expect(page.getByTestId("settings-status")).toHaveText(/^Saved\./);
  // Only tasks: no reminders, events or notes (not asked for, or not a write scope).
  await expect(panel.getByTestId("auto-execute").getByRole("checkbox")).toHaveCount(1);
  await panel.getByTestId("auto-create_task").check();
  await expect(page.getByTestId("settings-status")).toHaveText(
    "Saved. It creates tasks without asking.",
  );
  await expect(panel.getByTestId("auto-create_task")).toBeChecked();
  // The panel leaves the conversation in view, and Escape closes it.
  await expect(page.getByTestId("composer-text")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
});

test("sign-up says what to do when the email is taken; a person lands on Chats", async ({
  page,
  context,
}) => {
  const email = uniqueEmail("taken");
  await signUp(page, "First Comer", email);
  await expect(page).toHaveURL(/\/chats$/);
  await dropSession(page, context);
  await page.goto("/signup");
  await page.getByTestId("signup-name").fill("Second Comer");
  await page.getByTestId("signup-email").fill(email);
  await page.getByTestId("signup-password").fill("correct horse battery");
  await page.getByTestId("signup-submit").click();
  const error = page.getByTestId("signup-error");
  await expect(error).toHaveText("An account with this email exists — sign in?");
  await error.getByRole("link", { name: "sign in?" }).click();
  await expect(page).toHaveURL(/\/signin$/);
});

test("the owner's agents list and agent page show activity over days", async ({ page }) => {
  await signUp(page, "Dana Dashboard");
  const me = await myNum(page);
  const agent = await createAgent(deps(), {
    ownerId: me,
    displayName: "Busy Bee",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const fan = await createUser(deps(), { displayName: "Fan" });
  const stranger = await createUser(deps(), { displayName: "Stranger" });
  await addContact(deps(), fan.id, agent.id, ["messages:read", "messages:write"]);
  await sendPersonMessage(deps(), fan.id, agent.id, { type: "text", content: "hi" });
  for (const content of ["one", "two"])
    await sendAgentMessage(deps(), { agentId: agent.id }, { to: fan.num, type: "text", content });
  await sendAgentMessage(
    deps(),
    { agentId: agent.id },
    { to: stranger.num, type: "text", content: "?" },
  ).catch(() => undefined);

  // An owner signing in again lands on Agents; here we go there from Chats.
  await page.getByTestId("nav-agents").click();
  const row = page.getByTestId("agent-row").filter({ hasText: "Busy Bee" });
  await expect(row.getByTestId("agent-contacts")).toHaveText("1");
  await expect(row.getByTestId("agent-last-activity")).toHaveText(/ago$/);
  await expect(row.getByTestId("agent-sparkline-total")).toHaveText("3");
  await expect(
    row.getByTestId("agent-sparkline").locator("svg path.recharts-line-curve"),
  ).toHaveCount(1);

  await row.getByRole("link", { name: "Busy Bee" }).click();
  const messages = page.getByTestId("chart-messages");
  await expect(messages).toContainText("2 sent, 1 received");
  await expect(messages.locator("svg .recharts-bar-rectangle").first()).toBeVisible();
  await expect(page.getByTestId("chart-refusals")).toContainText("1 refused");
  await page.getByTestId("chart-refusals").getByText("Numbers").click();
  await expect(
    page.getByTestId("chart-refusals").getByRole("columnheader", { name: "Not a contact" }),
  ).toBeVisible();
});
