import type { Page } from "@playwright/test";
import {
  addContact,
  createAgent,
  createRecord,
  deleteOwnRecord,
  findUser,
  getOwnRecord,
  listOwnRecords,
  mintAgentToken,
} from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { seriousViolations } from "./axe";
import { myNum, signUp } from "./sign-up";

/**
 * Issue 40 item 10: a removal is never one irreversible click. Deleting or archiving a record
 * (and a comment's Delete) waits 5 s for Undo (decision 0069): Undo sends nothing, the window's end sends it, and a tab
 * that goes away sends it at once; revoking a token asks first.
 */

/** Whether the record is still stored, archived or not (read in the database, not the page). */
async function stored(userId: string, id: string): Promise<boolean> {
  return getOwnRecord(deps(), userId, "note", id).then(
    () => true,
    () => false,
  );
}

/** A signed-up person with one note, on the notes page. */
async function personWithNote(page: Page, title: string) {
  await signUp(page, "Uma Undo");
  const user = await findUser(deps(), await myNum(page));
  const note = await createRecord(deps(), user.id, "note", { title, content: "…" });
  await page.goto("/records/notes");
  return { user, note, row: page.locator(`[data-record-id="${note.id}"]`) };
}

/** Every console call that would delete or archive a record. */
function removals(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    const url = request.url();
    if (url.includes("records.delete") || url.includes("records.archive")) seen.push(url);
  });
  return seen;
}

test("Delete hides the record with an Undo for 5 s: Undo sends nothing; otherwise it is sent when the window passes", async ({
  page,
}) => {
  const { user, note, row } = await personWithNote(page, "Keep me");
  const sent = removals(page);
  const snackbar = page.getByTestId("undo-snackbar");

  await row.getByTestId("record-delete").click();
  await expect(row).toHaveCount(0);
  await expect(page.getByRole("status").filter({ has: snackbar })).toContainText(
    "Deleted “Keep me”.",
  );
  await snackbar.getByRole("button", { name: "Undo" }).click();
  await expect(snackbar).toHaveCount(0);
  await expect(row).toBeVisible();
  // Well past the window: nothing was sent, and the record is still stored.
  await page.waitForTimeout(6500);
  expect(sent).toEqual([]);
  expect(await stored(user.id, note.id)).toBe(true);
  await page.reload();
  await expect(row).toBeVisible();

  // Left alone, the window passes and the delete is sent once.
  const clicked = Date.now();
  await row.getByTestId("record-delete").click();
  await expect(snackbar).toBeVisible();
  await page.waitForTimeout(3000);
  expect(sent).toEqual([]);
  await expect(snackbar).toHaveCount(0, { timeout: 10_000 });
  expect(Date.now() - clicked).toBeGreaterThanOrEqual(5000);
  expect(sent).toHaveLength(1);
  await expect.poll(() => stored(user.id, note.id)).toBe(false);
  await expect(page.getByTestId("records-empty")).toBeVisible();
  await page.reload();
  await expect(row).toHaveCount(0);
});

test("by keyboard: the removed record's focus goes to Undo, Undo gives it back; Escape sends at once", async ({
  page,
}) => {
  const { user, note, row } = await personWithNote(page, "Keyboard note");
  await row.getByTestId("record-archive").focus();
  await page.keyboard.press("Enter");
  const undo = page.getByTestId("undo");
  await expect(undo).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(row.getByTestId("record-edit")).toBeFocused();
  // Not archived: still among the person's listed notes.
  const listed = await listOwnRecords(deps(), user.id, "note");
  expect(listed.map((each) => each.id)).toContain(note.id);

  await row.getByTestId("record-delete").focus();
  await page.keyboard.press("Enter");
  await expect(undo).toBeFocused();
  await page.keyboard.press("Escape");
  // Sent now, not in 5 s.
  await expect.poll(() => stored(user.id, note.id), { timeout: 3000 }).toBe(false);
});

test("leaving the page while an undo waits sends the removal at once", async ({ page }) => {
  const { user, note, row } = await personWithNote(page, "Gone when I leave");
  await row.getByTestId("record-delete").click();
  await expect(page.getByTestId("undo-snackbar")).toBeVisible();
  await page.goto("/chats");
  await expect.poll(() => stored(user.id, note.id), { timeout: 4000 }).toBe(false);
});

test("a removal the server refuses says so in the snackbar until dismissed", async ({ page }) => {
  const { user, note, row } = await personWithNote(page, "Archived elsewhere");
  await row.getByTestId("record-delete").click();
  await expect(row).toHaveCount(0);
  // Meanwhile the note goes in another tab: the delete the window sends finds nothing.
  await deleteOwnRecord(deps(), user.id, "note", note.id);
  const snackbar = page.getByTestId("undo-snackbar");
  await snackbar.getByTestId("undo").press("Escape");
  await expect(snackbar).toContainText("Could not delete “Archived elsewhere”: ");
  await snackbar.getByTestId("undo-dismiss").click();
  await expect(snackbar).toHaveCount(0);
});

test("on a phone the snackbar sits above the tab bar, and it passes axe", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const { row } = await personWithNote(page, "Phone note");
  await row.getByTestId("record-delete").click();
  const snackbar = page.getByTestId("undo-snackbar");
  await expect(snackbar).toBeVisible();
  const box = await snackbar.boundingBox();
  const tab = await page.getByTestId("nav-chats").boundingBox();
  expect(box && tab && box.y + box.height <= tab.y).toBe(true);
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  // The snackbar only: the page under it is pages.spec.ts's.
  expect(await seriousViolations(page, { within: '[data-testid="undo-region"]' })).toEqual([]);
  await expect(snackbar).toHaveCount(0, { timeout: 10_000 });
  await expect(row).toHaveCount(0);
});

test("revoking a token asks first: Cancel keeps it working", async ({ page, request }) => {
  await signUp(page, "Rex Revoke");
  const agent = await createAgent(deps(), {
    ownerId: await myNum(page),
    displayName: "Tokened",
    requestedScopes: ["messages:read"],
  });
  const { token } = await mintAgentToken(deps(), agent.id);
  const auth = { Authorization: `Bearer agent:${token}` };
  await page.goto(`/agents/${agent.id}/tokens`);
  await page.getByTestId("token-revoke").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toHaveAccessibleName(/^Revoke token/);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("token-list")).toContainText("active");
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(200);
  await page.getByTestId("token-revoke").click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByTestId("token-list")).toContainText("revoked");
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(401);
});

test("deleting a comment waits for Undo too: undone, the post still counts it; left, it is gone", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({ name: "Comment Digest" });
  const api = agentApi(request, auth);
  await signUp(page, "Cole Comment");
  await addContact(deps(), await myNum(page), agent.id, []);
  const post = await (await api.post("/posts", { texts: ["Morning notes"] })).json();
  const commentCount = async () =>
    (await (await api.get(`/posts/${post.id}`)).json()).commentCount as number;
  await page.goto("/feed");
  const card = page.getByTestId("feed-post").filter({ hasText: "Morning notes" });
  await card.getByTestId("post-comments-toggle").click();
  await card.getByTestId("comment-text").fill("Noted");
  await card.getByTestId("comment-submit").click();
  const comment = card.getByTestId("post-comment");
  await expect(comment).toContainText("Noted");
  await expect.poll(commentCount).toBe(1);

  await comment.getByTestId("comment-delete").click();
  await expect(comment).toHaveCount(0);
  await page.getByTestId("undo").click();
  await expect(comment).toContainText("Noted");
  await expect(comment.getByTestId("comment-delete")).toBeFocused();
  await page.waitForTimeout(6000);
  expect(await commentCount()).toBe(1);

  await comment.getByTestId("comment-delete").click();
  await expect(page.getByTestId("undo-snackbar")).toContainText("Deleted your comment.");
  await expect.poll(commentCount, { timeout: 10_000 }).toBe(0);
  await expect(page.getByTestId("undo-snackbar")).toHaveCount(0);
  await expect(comment).toHaveCount(0);
});
