import { addContact, createAgent, createUser, sendAgentMessage } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { myNum, signUp } from "./sign-up";

/** More chats than the list's three pages of 30 hold: Agent 01 the oldest, Agent 65 the newest. */
const CHATS = 65;

async function manyChats(person: string) {
  const owner = await createUser(deps(), { displayName: "Owner" });
  const chats: { agentId: string; conversationId: string; name: string }[] = [];
  for (let n = 1; n <= CHATS; n++) {
    const name = `Agent ${String(n).padStart(2, "0")}`;
    const agent = await createAgent(deps(), {
      ownerId: owner.id,
      displayName: name,
      requestedScopes: ["messages:write"],
    });
    const { conversationId } = await addContact(deps(), person, agent.id, ["messages:write"]);
    chats.push({ agentId: agent.id, conversationId, name });
  }
  return chats;
}

test("the chat list loads a page at a time, by scrolling or on request, and stays live", async ({
  page,
}) => {
  await signUp(page, "Paige Many");
  const chats = await manyChats(await myNum(page));
  const rows = page.getByTestId("chat-row");
  const list = page.getByTestId("chat-list");

  // The server sends the newest page only.
  await page.goto("/chats");
  await expect(rows).toHaveCount(30);
  await expect(rows.first()).toContainText("Agent 65");
  await expect(rows.last()).toContainText("Agent 36");

  // Scrolling to the end of the list loads the next page; the button loads the one after.
  await list.evaluate((element) => element.scrollTo(0, element.scrollHeight));
  await expect(rows).toHaveCount(60);
  await expect(rows.last()).toContainText("Agent 06");
  // Pressed while a live re-read of the list is under way (a message in a loaded chat; the
  // re-read held at the network for a moment): the press still loads the next page once the
  // re-read is done. Pressed where it is, 30 rows below the fold: a click() would scroll it into
  // view first, and the list then loads the last page by itself, which is another path.
  let hold = true;
  let held = 0;
  await page.route("**/api/trpc/chats.list**", async (route) => {
    if (hold) {
      held += 1;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    await route.continue();
  });
  const loaded = chats[40] as (typeof chats)[number];
  await sendAgentMessage(
    deps(),
    { agentId: loaded.agentId },
    { conversationId: loaded.conversationId, type: "text", content: "Still here" },
  );
  await expect.poll(() => held).toBeGreaterThan(0);
  await page.getByRole("button", { name: "Show more chats" }).dispatchEvent("click");
  hold = false;
  await expect(rows).toHaveCount(CHATS);
  await page.unroute("**/api/trpc/chats.list**");
  await expect(rows.last()).toContainText("Agent 01");
  await expect(page.getByTestId("chat-more")).toHaveCount(0);

  // A message in an old chat moves it to the top, unread, without repeating it.
  const old = chats[1] as (typeof chats)[number];
  await sendAgentMessage(
    deps(),
    { agentId: old.agentId },
    { conversationId: old.conversationId, type: "text", content: "Back again" },
  );
  await expect(rows.first()).toContainText("Agent 02");
  await expect(rows.first()).toContainText("Back again");
  await expect(rows.first().getByTestId("chat-unread")).toContainText("1");
  await expect(rows).toHaveCount(CHATS);
  await expect(rows.filter({ hasText: "Agent 02" })).toHaveCount(1);
});

test("a chat opened by a link shows in the list, marked, before its page is loaded", async ({
  page,
}) => {
  await signUp(page, "Olly Old");
  const chats = await manyChats(await myNum(page));
  const oldest = chats[0] as (typeof chats)[number];

  await page.goto(`/chats/${oldest.conversationId}`);
  await expect(page.getByTestId("chat-agent-name")).toHaveText("Agent 01");
  const rows = page.getByTestId("chat-row");
  await expect(rows).toHaveCount(31);
  await expect(rows.last()).toContainText("Agent 01");
  await expect(rows.last()).toHaveAttribute("aria-current", "page");
  await expect(rows.first()).toContainText("Agent 65");
});

test("each chat in the list shows its agent's initial beside the name", async ({ page }) => {
  await signUp(page, "Ines Initials");
  const owner = await createUser(deps(), { displayName: "Owner" });
  const agent = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: "zephyr forecasts",
    requestedScopes: ["messages:write"],
  });
  await addContact(deps(), await myNum(page), agent.id, ["messages:write"]);
  await page.goto("/chats");
  const row = page.getByTestId("chat-row");
  await expect(row).toContainText("zephyr forecasts");
  // Decorative (the name is written beside it): hidden from screen readers.
  await expect(row.locator('[aria-hidden="true"]').first()).toHaveText("Z");
  const [avatar, name] = await Promise.all([
    row.locator('[aria-hidden="true"]').first().boundingBox(),
    row.getByText("zephyr forecasts").boundingBox(),
  ]);
  expect(avatar && name && avatar.x + avatar.width <= name.x).toBe(true);
});
