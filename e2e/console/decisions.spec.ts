import { readFile } from "node:fs/promises";
import type { AgentScope } from "@switchboard/contract";
import {
  addContact,
  createUser,
  decideAction,
  expireAction,
  setAutoExecute,
} from "@switchboard/core";
import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import { deps, newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

const scopes: AgentScope[] = [
  "messages:read",
  "messages:write",
  "tasks:read",
  "tasks:write",
  "notes:write",
];

/** "at 10:02" (or "at 10:02 AM"): the decision was today. */
const at = String.raw`at \d{1,2}:\d{2}(\s?[AP]M)?`;

/** Ends a pending proposal as its expiry timer would, without waiting a minute for it. */
async function expireNow(actionId: string) {
  await deps()
    .db.update(schema.actions)
    .set({ expiresAt: sql`now() - interval '1 second'` })
    .where(eq(schema.actions.id, actionId));
  expect(await expireAction(deps(), actionId)).toBe("expired");
}

test("a decided card says who decided, when and what changed; records link to their card; the export has every decision", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({ name: "Auditor Bot", scopes });
  await signUp(page, "Audrey Approver");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  const propose = async (data: Record<string, unknown>) => {
    const answer = await request.post("/api/agent/v1/actions", {
      headers: auth,
      data: { conversationId, title: "Please decide", ...data },
    });
    expect(answer.status()).toBe(201);
    return (await answer.json()).action as { id: string; userId: string };
  };
  const cardOf = (actionId: string) =>
    page.locator(`[data-testid="approval-card"][data-action-id="${actionId}"]`);

  // Approved with two changes, in the console.
  const task = await propose({
    skill: "create_task",
    title: "Add a shopping task",
    payload: { title: "Buy milk", priority: "low" },
  });
  const taskCard = cardOf(task.id);
  await taskCard.getByTestId("card-edit").click();
  await taskCard.getByTestId("field-title").fill("Buy oat milk");
  await taskCard.getByTestId("field-priority").selectOption("high");
  await taskCard.getByTestId("card-edit-form-submit").click();
  await expect(taskCard.getByTestId("card-decision")).toHaveText(
    new RegExp(`^Approved by you ${at} with 2 changes$`),
  );

  // Rejected in the console; expired; run automatically.
  const order = await propose({ kind: "order.place", payload: { sku: "A1" } });
  await cardOf(order.id).getByTestId("card-reject").click();
  await page.getByTestId("reject-ok").click();
  await expect(cardOf(order.id).getByTestId("card-decision")).toHaveText(
    new RegExp(`^Rejected by you ${at}$`),
  );
  const late = await propose({ kind: "table.book", payload: { seats: 2 } });
  await expireNow(late.id);
  await expect(cardOf(late.id).getByTestId("card-decision")).toHaveText(
    new RegExp(`^Expired ${at}$`),
  );
  await setAutoExecute(deps(), task.userId, agent.id, "create_note", true);
  const note = await propose({ skill: "create_note", payload: { content: "Ideas" } });
  await expect(cardOf(note.id).getByTestId("card-decision")).toHaveText(
    new RegExp(`^Ran automatically ${at}$`),
  );

  // The task links back to the card that made it.
  await page.goto("/records/tasks");
  const record = page.getByTestId("record").filter({ hasText: "Buy oat milk" });
  await expect(record.getByTestId("record-card-link")).toHaveText("From a card by Auditor Bot");
  await record.getByTestId("record-card-link").click();
  await expect(page).toHaveURL(new RegExp(`/chats/${conversationId}#card-msg_\\w+$`));
  await expect(taskCard).toBeFocused();

  // The export: this person's four decisions, proposed and approved payloads included.
  await page.goto("/records/tasks");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("export-decisions").click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^switchboard-decisions-\d{4}-\d{2}-\d{2}\.json$/);
  const exported = JSON.parse(await readFile(await download.path(), "utf8"));
  const byId = new Map(
    exported.decisions.map((d: { actionId: string }) => [d.actionId, d] as const),
  );
  expect(exported.decisions).toHaveLength(4);
  expect(byId.get(task.id)).toMatchObject({
    outcome: "approved",
    via: "console",
    decidedBy: task.userId,
    changes: 2,
    proposedPayload: { title: "Buy milk", priority: "low" },
    approvedPayload: { title: "Buy oat milk", priority: "high" },
    conversationId,
  });
  expect(byId.get(order.id)).toMatchObject({ outcome: "rejected", approvedPayload: null });
  expect(byId.get(late.id)).toMatchObject({ outcome: "expired", via: "expiry", decidedBy: null });
  expect(byId.get(note.id)).toMatchObject({ outcome: "approved", via: "auto_execute" });
});

test("an owner names tokens, sees their last use and the agent's decisions; revoke and pause confirm in a dialog, by keyboard", async ({
  page,
  request,
}) => {
  await signUp(page, "Kim Keyboard");
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-name").fill("Keyed");
  await page.getByTestId("agent-create").click();
  await page.getByTestId("agent-created").getByRole("link").click();
  await expect(page.getByTestId("agent-title")).toHaveText("Keyed");
  const agentId = page.url().split("/").at(-1) as string;

  await page.getByTestId("agent-tab-tokens").click();
  await page.getByTestId("token-name").fill("laptop");
  await page.getByTestId("token-mint").click();
  const token = (await page.getByTestId("token-value").textContent())?.trim() ?? "";
  const row = page.getByTestId("token-row").filter({ hasText: "laptop" });
  await expect(row.getByTestId("token-last-used")).toHaveText("never");
  const auth = { Authorization: `Bearer agent:${token}` };
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(200);

  // People decide the agent's proposals (outside the console: through core, as the CLI does).
  const person = await createUser(deps(), { displayName: "Pat Person" });
  await addContact(deps(), person.id, agentId, ["messages:read", "messages:write"]);
  const decide = async (kind: string, approve: boolean, editedPayload?: object) => {
    const answer = await request.post("/api/agent/v1/actions", {
      headers: auth,
      data: { to: person.num, kind, title: `Proposal ${kind}`, payload: { n: 1 } },
    });
    const { action } = await answer.json();
    await decideAction(deps(), { userRef: person.id, actionId: action.id, approve, editedPayload });
  };
  await decide("first", true);
  await decide("second", true, { n: 2 });
  await decide("third", false);

  await page.reload();
  await expect(row.getByTestId("token-last-used")).toHaveText(/ago · IPv[46]$/);
  await page.getByTestId("agent-tab-decisions").click();
  const counts = page.getByTestId("decision-counts");
  await expect(counts.getByTestId("decisions-approved")).toContainText("1");
  await expect(counts.getByTestId("decisions-edited")).toContainText("1");
  await expect(counts.getByTestId("decisions-rejected")).toContainText("1");
  await expect(counts.getByTestId("decisions-expired")).toContainText("0");
  await expect(page.getByTestId("decision-row")).toHaveText([
    /Proposal third\s*Pat Person\s*rejected/,
    /Proposal second\s*Pat Person\s*approved with 1 change/,
    /Proposal first\s*Pat Person\s*approved/,
  ]);

  // Revoke, by keyboard only: the dialog takes focus, keeps Tab inside, Escape returns focus.
  await page.getByTestId("agent-tab-tokens").click();
  const revoke = row.getByTestId("token-revoke");
  await revoke.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAccessibleName(/Revoke token “laptop”/);
  const cancel = dialog.getByRole("button", { name: "Cancel" });
  const confirm = dialog.getByRole("button", { name: "Revoke token" });
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(confirm).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(revoke).toBeFocused();
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(200);

  await page.keyboard.press("Enter");
  await expect(cancel).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(row).toContainText("revoked");
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(401);

  // Pause asks too.
  await page.getByTestId("agent-tab-overview").click();
  await page.getByTestId("agent-pause").focus();
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveAccessibleName("Pause this agent?");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("agent-state")).toHaveText("paused");
});
