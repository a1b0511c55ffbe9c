import { addContact, decideAction, expireAction } from "@switchboard/core";
import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import { deps, newAgent } from "../support/fixtures";
import { type APIRequestContext, expect, type Page, test } from "../support/test";
import { seriousViolations } from "./axe";
import { signUp } from "./sign-up";

/** A person signed in, with a chat with each of two agents (added on their behalf). */
async function personWithTwoAgents(page: Page, name: string) {
  await signUp(page, name);
  const num = (await page.getByTestId("whoami-num").textContent())?.trim() as string;
  const chatWith = async (agentName: string) => {
    const setup = await newAgent({ name: agentName });
    const { conversationId } = await addContact(deps(), num, setup.agent.id, [
      "messages:read",
      "messages:write",
    ]);
    return { ...setup, conversationId };
  };
  return { num, planner: await chatWith("Planner"), shopper: await chatWith("Shopper") };
}

/** The agent proposes a card in its chat, expiring in `minutes`; answers the action's id. */
async function propose(
  request: APIRequestContext,
  chat: { auth: Record<string, string>; conversationId: string },
  title: string,
  minutes = 60,
): Promise<string> {
  const proposed = await request.post("/api/agent/v1/actions", {
    headers: chat.auth,
    data: {
      conversationId: chat.conversationId,
      kind: "errand.run",
      title,
      payload: { where: "the corner shop" },
      expiresAt: new Date(Date.now() + minutes * 60_000).toISOString(),
    },
  });
  expect(proposed.status(), await proposed.text()).toBe(201);
  return (await proposed.json()).action.id;
}

/** Puts a card past its time in the database, as if its minute had passed. */
async function pastItsTime(actionId: string) {
  await deps()
    .db.update(schema.actions)
    .set({ expiresAt: sql`now() - interval '1 second'` })
    .where(eq(schema.actions.id, actionId));
}

/** Ends a pending card as its expiry timer would, without waiting for it. */
async function expireNow(actionId: string) {
  await pastItsTime(actionId);
  expect(await expireAction(deps(), actionId)).toBe("expired");
}

const card = (page: Page, title: string) =>
  page.getByTestId("approval-card").filter({ has: page.getByRole("heading", { name: title }) });

test("Waiting for you, the nav's count and the tab's title follow cards proposed, decided elsewhere and expired, live", async ({
  page,
  request,
}) => {
  // The app's icon badge (the Badging API), recorded: the last number set, 0 once cleared.
  await page.addInitScript(() => {
    const badge = (count: number) => {
      Object.assign(window, { appBadge: count });
      return Promise.resolve();
    };
    Object.assign(navigator, {
      setAppBadge: (count: number) => badge(count),
      clearAppBadge: () => badge(0),
    });
  });
  const appBadge = () => page.evaluate(() => (window as { appBadge?: number }).appBadge);
  const { num, planner, shopper } = await personWithTwoAgents(page, "Wendy Waiting");
  const nav = page.getByTestId("nav-waiting");
  await nav.click();
  await expect(page).toHaveURL(/\/waiting$/);
  await expect(page.getByTestId("waiting-empty")).toContainText("Nothing waits for you");
  await expect(page).toHaveTitle("Waiting for you · Switchboard");
  await expect(nav).toHaveAccessibleName("Waiting for you");
  await expect(page.getByTestId("nav-waiting-count")).toHaveCount(0);
  await expect(page.getByTestId("live-status")).toHaveText("live");
  // Everything below happens in this one page: no reload.
  await page.evaluate(() => Object.assign(window, { sameDocument: true }));

  const later = await propose(request, planner, "Book the plumber", 120);
  const sooner = await propose(request, shopper, "Buy the milk", 30);
  // The one expiring first first, each with its agent and the way to its chat.
  await expect(page.getByTestId("card-title")).toHaveText(["Buy the milk", "Book the plumber"]);
  await expect(card(page, "Buy the milk").getByTestId("waiting-from")).toContainText(
    "From Shopper",
  );
  await expect(card(page, "Book the plumber").getByTestId("waiting-open-chat")).toHaveAttribute(
    "href",
    new RegExp(`^/chats/${planner.conversationId}#card-msg_`),
  );
  await expect(page.getByTestId("waiting-count")).toHaveText("2 cards wait for you");
  await expect(page.getByTestId("nav-waiting-count")).toHaveText("2");
  await expect(nav).toHaveAccessibleName("Waiting for you, 2");
  await expect(page).toHaveTitle("(2) Waiting for you · Switchboard");
  await expect.poll(appBadge).toBe(2);

  // Decided elsewhere (the CLI's decision, as the person): it shows how it ended, in its place.
  await decideAction(deps(), { userRef: num, actionId: sooner, approve: false });
  await expect(card(page, "Buy the milk").getByTestId("card-state")).toHaveText("rejected");
  await expect(card(page, "Buy the milk").getByTestId("card-decision")).toContainText(
    "Rejected by you from the CLI",
  );
  await expect(page.getByTestId("nav-waiting-count")).toHaveText("1");
  await expect(page).toHaveTitle("(1) Waiting for you · Switchboard");
  await expect.poll(appBadge).toBe(1);

  // Expired: nothing waits any more.
  await expireNow(later);
  await expect(card(page, "Book the plumber").getByTestId("card-state")).toHaveText("expired");
  await expect(page.getByTestId("waiting-count")).toHaveText("No cards wait for you");
  await expect(page.getByTestId("nav-waiting-count")).toHaveCount(0);
  await expect(nav).toHaveAccessibleName("Waiting for you");
  await expect(page).toHaveTitle("Waiting for you · Switchboard");
  await expect.poll(appBadge).toBe(0);

  // On every page the count goes before the page's own title, through navigations.
  await page.getByTestId("nav-chats").click();
  await expect(page).toHaveTitle("Chats · Switchboard");
  await propose(request, planner, "Water the plants");
  await expect(page).toHaveTitle("(1) Chats · Switchboard");
  await page.getByTestId("nav-inbox").click();
  await expect(page).toHaveTitle("(1) Inbox · Switchboard");
  await nav.click();
  await expect(page).toHaveTitle("(1) Waiting for you · Switchboard");

  // Decided here, in place: approved, and the count goes.
  const plants = card(page, "Water the plants");
  await plants.getByTestId("card-approve").click();
  await expect(plants.getByTestId("card-state")).toHaveText("approved");
  await expect(page.getByTestId("nav-waiting-count")).toHaveCount(0);
  await expect(page).toHaveTitle("Waiting for you · Switchboard");
  expect(await page.evaluate(() => "sameDocument" in window)).toBe(true);
});

test("a card decided or expired elsewhere shows how it ended when a decision here is refused, never pending beside an error", async ({
  page,
  request,
}) => {
  const { num, planner, shopper } = await personWithTwoAgents(page, "Stella Stale");
  const decided = await propose(request, planner, "Order the flowers");
  const expiring = await propose(request, shopper, "Renew the parking permit");
  // This tab hears of nothing: its cards go stale.
  await page.route("**/api/trpc/live.changes**", (route) => route.abort());
  await page.goto("/waiting");
  const flowers = card(page, "Order the flowers");
  const permit = card(page, "Renew the parking permit");
  await expect(flowers.getByTestId("card-state")).toHaveText("pending");
  await expect(permit.getByTestId("card-state")).toHaveText("pending");

  await decideAction(deps(), { userRef: num, actionId: decided, approve: true });
  await expect(flowers.getByTestId("card-state")).toHaveText("pending");

  await flowers.getByTestId("card-approve").click();
  await expect(flowers.getByTestId("card-state")).toHaveText("approved");
  await expect(flowers.getByTestId("card-stale")).toHaveText(
    "It was decided elsewhere before your answer arrived.",
  );
  await expect(flowers.getByTestId("card-decision")).toContainText("Approved by you from the CLI");
  await expect(flowers.getByRole("alert")).toHaveCount(0);
  await expect(flowers.getByTestId("card-approve")).toHaveCount(0);

  // That re-read this tab's cards; now the other one runs out of time, unknown to it.
  await expect(permit.getByTestId("card-state")).toHaveText("pending");
  await pastItsTime(expiring);

  // Rejecting still asks first (a dialog, never one click); the refusal then re-reads it too.
  await permit.getByTestId("card-reject").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(permit.getByTestId("card-state")).toHaveText("pending");
  await dialog.getByTestId("reject-ok").click();
  await expect(permit.getByTestId("card-state")).toHaveText("expired");
  await expect(permit.getByTestId("card-stale")).toHaveText(
    "It expired before your answer arrived.",
  );
  await expect(permit.getByRole("alert")).toHaveCount(0);
});

test("Waiting for you passes axe at a phone's width and a desk's, with cards and with none", async ({
  page,
  request,
}) => {
  const { planner, shopper } = await personWithTwoAgents(page, "Axel Accessible");
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/waiting");
    await expect(page.getByTestId("waiting-empty")).toBeVisible();
    expect(await seriousViolations(page), `empty at ${width}`).toEqual([]);
  }
  await propose(request, planner, "Book the plumber");
  await propose(request, shopper, "Buy the milk", 20);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/waiting");
    await expect(page.getByTestId("approval-card")).toHaveCount(2);
    await expect(page.getByTestId("nav-waiting-count")).toHaveText("2");
    await expect(page.getByTestId("nav-waiting")).toBeVisible();
    expect(await seriousViolations(page), `with cards at ${width}`).toEqual([]);
  }
});
