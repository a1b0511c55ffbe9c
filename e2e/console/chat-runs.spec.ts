import { decideAction } from "@switchboard/core";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { deps, newAgent, PNG_1X1 } from "../support/fixtures";
import { startMediaServer } from "../support/media-server";
import { type APIRequestContext, expect, type Locator, test } from "../support/test";
import { seriousViolations } from "./axe";
import { fitsWidth, myNum } from "./sign-up";
import { chatWithNewAgent } from "./world";

/**
 * Issue 40 items 3 and 4: the chat list's pictures, search and "needs your decision" mark;
 * bubbles grouped into runs (the time on the last), their actions on hover or focus, a reply
 * that quotes (the agent gets `replyToId`) and Copy.
 */

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

/** How wide a message's time is drawn: a visually hidden one is 1 px at most. */
const timeWidth = (message: Locator) =>
  message.locator("time").evaluate((time) => time.getBoundingClientRect().width);
/** The full time's label a message's time shows while keyboard focus is in the message. */
const fullTimeLabel = (message: Locator) =>
  message.locator("time").evaluate((time) => {
    const after = getComputedStyle(time, "::after");
    return after.content === "none" || after.display === "none" ? "" : after.content;
  });
/** Where every message and its menu button are drawn, to tell that nothing moved. */
const boxes = (messages: Locator) =>
  messages.evaluateAll((all) =>
    all.flatMap((message) =>
      [message, message.querySelector('[data-testid="react-button"]')].map((element) => {
        const box = element?.getBoundingClientRect();
        return box ? [box.x, box.y, box.width, box.height].map(Math.round).join(",") : "";
      }),
    ),
  );
const opacityOf = (locator: Locator) =>
  locator.evaluate((element) => Number(getComputedStyle(element).opacity));

async function agentWrites(
  request: APIRequestContext,
  auth: Record<string, string>,
  conversationId: string,
  content: string,
): Promise<string> {
  const sent = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: { conversationId, type: "text", content },
  });
  expect(sent.status()).toBe(201);
  return (await sent.json()).message.id;
}

test("a run of messages shows its time once; actions show on hover or focus; reply quotes and reaches the agent; copy copies", async ({
  page,
  request,
}) => {
  await page.setViewportSize(desktop);
  const { auth, conversationId } = await chatWithNewAgent(page, "Rita Runs", [
    "messages:read",
    "messages:write",
  ]);
  const ids: string[] = [];
  for (const words of ["First of three", "Second of three", "Third of three"])
    ids.push(await agentWrites(request, auth, conversationId, words));
  const messages = page.getByTestId("chat-message");
  await expect(messages).toHaveCount(3);
  const [first, second, third] = [messages.nth(0), messages.nth(1), messages.nth(2)];

  // One run: only its last message shows the time; each keeps a time for screen readers.
  expect(await timeWidth(first)).toBeLessThanOrEqual(1);
  expect(await timeWidth(second)).toBeLessThanOrEqual(1);
  expect(await timeWidth(third)).toBeGreaterThan(1);
  for (const message of [first, second, third])
    await expect(message.locator("time")).toHaveAttribute("datetime", /\d{4}-\d\d-\d\dT/);

  // Actions wait for the pointer or focus.
  const actions = first.getByTestId("message-actions");
  await page.mouse.move(0, 0);
  await expect.poll(() => opacityOf(actions)).toBe(0);
  await first.hover();
  await expect.poll(() => opacityOf(actions)).toBe(1);
  await page.mouse.move(0, 0);
  await expect.poll(() => opacityOf(actions)).toBe(0);
  // Unseen, a message's button takes no click: where it sits (over the bottom edge of the
  // message above) a click reaches what is drawn there.
  const hidden = await second.getByTestId("react-button").boundingBox();
  const takesClick = await page.evaluate(
    ([x, y]) =>
      document
        .elementFromPoint(x as number, y as number)
        ?.closest('[data-testid="message-actions"]') !== null,
    [hidden!.x + hidden!.width / 2, hidden!.y + hidden!.height / 2],
  );
  expect(takesClick).toBe(false);

  // By keyboard: one Tab stop per message (back from the composer is the newest message's),
  // its menu has the reactions, then Reply and Copy; the time shows while focus is in it.
  await page.getByTestId("composer-text").focus();
  await page.keyboard.press("Shift+Tab");
  await expect(third.getByTestId("react-button")).toBeFocused();
  await expect.poll(() => opacityOf(third.getByTestId("message-actions"))).toBe(1);
  await page.keyboard.press("Shift+Tab");
  await expect(second.getByTestId("react-button")).toBeFocused();
  await expect.poll(() => fullTimeLabel(second)).toMatch(/\d{4}/);
  expect(await timeWidth(second)).toBeLessThanOrEqual(1);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitemcheckbox", { name: "React 👍" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(third.getByTestId("message-reactions")).toContainText("👍");
  await expect(third.getByTestId("react-button")).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("End");
  await expect(page.getByRole("menuitem", { name: "Copy text" })).toBeFocused();
  await page.keyboard.press("ArrowLeft");
  await expect(page.getByRole("menuitem", { name: "Reply" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(third.getByTestId("react-button")).toBeFocused();

  // Copy puts the message's words on the clipboard.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  const menuOf = async (message: typeof second) => {
    await message.hover();
    await message.getByTestId("react-button").click();
  };
  await menuOf(second);
  await second.getByTestId("copy-button").click();
  await expect(second.getByTestId("copy-state")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Second of three");

  // Reply: the composer quotes the message (Escape drops the quote), the send carries it.
  await menuOf(second);
  await second.getByTestId("reply-button").click();
  const quote = page.getByTestId("composer-reply");
  await expect(quote).toContainText("Second of three");
  // The quote names the agent as the chat does (its display name), not "the agent".
  const agentName = (await page.getByTestId("chat-agent-name").textContent())?.trim() ?? "";
  expect(agentName).not.toBe("");
  await expect(quote).toContainText(`Replying to ${agentName}`);
  await expect(page.getByTestId("composer-text")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(quote).toHaveCount(0);
  await menuOf(second);
  await second.getByTestId("reply-button").click();
  await expect(quote).toContainText("Second of three");
  await page.getByTestId("composer-text").fill("Yes to the second");
  await page.keyboard.press("Enter");
  await expect(quote).toHaveCount(0);
  const reply = messages.filter({ hasText: "Yes to the second" });
  await expect(reply.getByTestId("message-quote")).toContainText("Second of three");
  await expect(reply.getByTestId("message-quote")).toContainText(`Replying to ${agentName}`);
  // A reply to one's own message says "you".
  await menuOf(reply);
  await reply.getByTestId("reply-button").click();
  await expect(quote).toContainText("Replying to your message");
  await page.getByTestId("composer-text").fill("And to myself");
  await page.keyboard.press("Enter");
  await expect(
    messages.filter({ hasText: "And to myself" }).getByTestId("message-quote"),
  ).toContainText("Replying to you");

  // The agent sees what it replies to, in its history and in message.received.
  const history = await (
    await request.get(`/api/agent/v1/conversations/${conversationId}/messages`, { headers: auth })
  ).json();
  const sent = history.messages.find((m: { content: string }) => m.content === "Yes to the second");
  expect(sent.replyToId).toBe(ids[1]);
  const updates = await (
    await request.get("/api/agent/v1/updates?afterSeq=0&wait=5", { headers: auth })
  ).json();
  const received = updates.events.find(
    (e: { type: string; payload: { message?: { content: string } } }) =>
      e.type === "message.received" && e.payload.message?.content === "Yes to the second",
  );
  expect(received.payload.message.replyToId).toBe(ids[1]);

  for (const size of [desktop, phone]) {
    await page.setViewportSize(size);
    await second.hover();
    await second.getByTestId("react-button").click();
    await page.screenshot({ path: test.info().outputPath(`runs-${size.width}.png`) });
    await page.keyboard.press("Escape");
    await second.hover();
    expect(await seriousViolations(page), `axe at ${size.width}`).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
  }
});

test("a message's full time shows on keyboard focus without moving anything, so a click after Tab lands", async ({
  page,
  request,
}) => {
  const { auth, conversationId } = await chatWithNewAgent(page, "Tara Tabs", [
    "messages:read",
    "messages:write",
  ]);
  for (const words of ["Earlier in the run", "Last of the run"])
    await agentWrites(request, auth, conversationId, words);
  await page.getByTestId("composer-text").fill("Mine at the end");
  await page.keyboard.press("Enter");
  const messages = page.getByTestId("chat-message");
  await expect(messages).toHaveCount(3);
  await expect(messages.nth(2).getByTestId("message-read-state")).toBeVisible();
  const list = page.getByTestId("chat-message").first().locator("xpath=..");

  for (const size of [desktop, phone]) {
    await page.setViewportSize(size);
    // Newest first: mine, then the run's last, then the run's earlier one.
    for (const index of [2, 1, 0]) {
      const message = messages.nth(index);
      const tabTo = async () => {
        await page.getByTestId("composer-text").focus();
        for (let step = 2; step >= index; step--) await page.keyboard.press("Shift+Tab");
        await expect(message.getByTestId("react-button")).toBeFocused();
      };
      await page.mouse.move(0, 0);
      await page.getByTestId("composer-text").focus();
      const unfocused = await boxes(messages);
      await tabTo();
      await expect.poll(() => fullTimeLabel(message)).toMatch(/\d{4}/);
      expect(await fullTimeLabel(message)).toContain(
        await message.locator("time").getAttribute("title"),
      );
      // Nothing in the thread moved, and the label stays within its width (no sideways scroll).
      expect(await boxes(messages), `message ${index} at ${size.width}`).toEqual(unfocused);
      expect(await list.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(
        true,
      );
      await page.screenshot({ path: test.info().outputPath(`focus-${index}-${size.width}.png`) });
      // A click on the focused button (the pointer ends the keyboard's focus ring, and the label
      // with it) lands: its menu opens, the button where it was.
      const button = await message.getByTestId("react-button").boundingBox();
      if (!button) throw new Error("no menu button");
      await page.mouse.click(button.x + button.width / 2, button.y + button.height / 2);
      await expect(message.getByRole("menu")).toBeVisible();
      expect(await message.getByTestId("react-button").boundingBox()).toEqual(button);
      await page.keyboard.press("Escape");
      await expect(message.getByRole("menu")).toHaveCount(0);
    }
  }
});

test("the chat list shows pictures through the console, finds chats by name, and marks chats that wait for a decision", async ({
  page,
  request,
}) => {
  await page.setViewportSize(desktop);
  const pictures = await startMediaServer({ "/me.png": { type: "image/png", body: PNG_1X1 } });
  try {
    const first = await chatWithNewAgent(page, "Lena List", ["messages:read", "messages:write"]);
    // The agent's picture is on its own server (http on loopback, so set in the row: the API
    // takes https only).
    await deps()
      .db.update(schema.users)
      .set({ avatarUrl: pictures.url("/me.png") })
      .where(eq(schema.users.id, first.agent.id));
    const second = await newAgent({ name: "Quill Second" });
    await page.goto(`/chats/add?agent=${second.agent.num}`);
    await page.getByTestId("consent-add").click();
    await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
    await page.goto(`/chats/${first.conversationId}`);

    const rows = page.getByTestId("chat-row");
    await expect(rows).toHaveCount(2);
    const pictured = rows.filter({ hasText: "Test Agent" });
    const plain = rows.filter({ hasText: "Quill Second" });
    const image = pictured.getByTestId("agent-avatar-image");
    await expect(image).toHaveAttribute("src", /^\/api\/console\/avatar\/agt_\w+\?v=\w+$/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    await expect(plain.getByTestId("agent-avatar-image")).toHaveCount(0);
    await expect(plain.locator('[aria-hidden="true"]').first()).toHaveText("Q");
    // Only the service asked the agent's server, never the browser.
    expect(pictures.requests.length).toBeGreaterThan(0);
    for (const asked of pictures.requests) expect(asked.userAgent).toMatch(/^Switchboard-Media/);

    // Search by name (the server's search: the list may not be loaded whole).
    const search = page.getByTestId("chat-search");
    await search.fill("quill");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("Quill Second");
    await search.fill("nobody-like-this");
    await expect(rows).toHaveCount(0);
    await expect(page.getByTestId("chat-list-empty")).toContainText("nobody-like-this");
    await search.fill("");
    await expect(rows).toHaveCount(2);

    // A card waiting for the person marks its chat, live; deciding it takes the mark away.
    await expect(page.getByTestId("chat-pending")).toHaveCount(0);
    const proposed = await request.post("/api/agent/v1/actions", {
      headers: first.auth,
      data: {
        conversationId: first.conversationId,
        kind: "booking",
        title: "May I book the table?",
      },
    });
    expect(proposed.status()).toBe(201);
    await expect(pictured.getByTestId("chat-pending")).toBeVisible();
    await expect(pictured.getByTestId("chat-pending")).toContainText("1 card needs your decision");
    await expect(plain.getByTestId("chat-pending")).toHaveCount(0);

    for (const size of [desktop, phone]) {
      await page.setViewportSize(size);
      await page.goto("/chats");
      await expect(rows).toHaveCount(2);
      expect(await seriousViolations(page), `axe at ${size.width}`).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
      await page.screenshot({ path: test.info().outputPath(`list-${size.width}.png`) });
    }
    await page.setViewportSize(desktop);
    await page.goto(`/chats/${second.agent.num}`);
    await expect(pictured.getByTestId("chat-pending")).toBeVisible();
    await decideAction(deps(), {
      userRef: await myNum(page),
      actionId: (await proposed.json()).action.id,
      approve: true,
    });
    await expect(pictured.getByTestId("chat-pending")).toHaveCount(0);
  } finally {
    await pictures.close();
  }
});
