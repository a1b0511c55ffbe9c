import type { AgentScope } from "@switchboard/contract";
import { newAgent } from "../support/fixtures";
import { type APIRequestContext, expect, type Page, test } from "../support/test";
import { signUp } from "./sign-up";

const scopes: AgentScope[] = [
  "messages:read",
  "messages:write",
  "tasks:read",
  "tasks:write",
  "notes:write",
];

/** A person signed up in the browser who added a fresh agent through its consent card. */
async function chatWithAgent(page: Page, name: string) {
  const setup = await newAgent({ name: "Planner", scopes });
  await signUp(page, name);
  await page.goto(`/chats/add?agent=${setup.agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  return { ...setup, conversationId: page.url().split("/").at(-1) as string };
}

/** The agent proposes a create_task card in the chat; answers the action's id. */
async function proposeTask(
  request: APIRequestContext,
  chat: Awaited<ReturnType<typeof chatWithAgent>>,
  title: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const proposed = await request.post("/api/agent/v1/actions", {
    headers: chat.auth,
    data: { conversationId: chat.conversationId, skill: "create_task", title, payload },
  });
  expect(proposed.status()).toBe(201);
  return (await proposed.json()).action.id;
}

test("an edit form whose checks cannot load says so, and works once they can", async ({
  page,
  request,
}) => {
  const chat = await chatWithAgent(page, "Olive Offline");
  await proposeTask(request, chat, "Add a task", { title: "Buy milk" });
  const card = page.getByTestId("approval-card");
  await expect(card.getByTestId("card-state")).toHaveText("pending");

  // The page is up; the form's checks load when it opens, and now no script can.
  const blocked = "**/_next/static/chunks/**";
  await page.route(blocked, (route) => route.abort());
  await card.getByTestId("card-edit").click();
  const form = card.getByTestId("card-edit-form");
  await form.getByTestId("field-title").fill("Buy oat milk");
  await form.getByTestId("card-edit-form-submit").click();
  await expect(form.getByRole("alert")).toContainText("could not load its checks");
  await expect(card.getByTestId("card-state")).toHaveText("pending");

  await page.unroute(blocked);
  await form.getByTestId("card-edit-form-submit").click();
  await expect(card.getByTestId("card-state")).toHaveText("approved");
  await expect(card.getByTestId("card-payload")).toContainText("Buy oat milk");
});

test("approving an edited create_task card creates the task; the agent sees the execution", async ({
  page,
  request,
}) => {
  const chat = await chatWithAgent(page, "Avery Approver");
  const actionId = await proposeTask(request, chat, "Add a shopping task", {
    title: "Buy milk",
    priority: "low",
  });
  // The card arrives live, pending, with what it would do.
  const card = page.getByTestId("approval-card");
  await expect(card.getByTestId("card-state")).toHaveText("pending");
  await expect(card.getByTestId("card-title")).toHaveText("Add a shopping task");
  await expect(card.getByTestId("card-payload")).toContainText("Buy milk");

  // Edit: the form is checked before it is sent.
  await card.getByTestId("card-edit").click();
  const form = card.getByTestId("card-edit-form");
  await form.getByTestId("field-title").fill("");
  await form.getByTestId("card-edit-form-submit").click();
  await expect(form.getByRole("alert")).toContainText(/required/i);
  await form.getByTestId("field-title").fill("Buy oat milk");
  await form.getByTestId("field-priority").selectOption("high");
  await form.getByTestId("field-dueDate").fill("2030-01-15T09:30");
  await form.getByTestId("card-edit-form-submit").click();

  await expect(card.getByTestId("card-state")).toHaveText("approved");
  await expect(card.getByTestId("card-payload")).toContainText("Buy oat milk");
  await expect(card.getByTestId("card-execution")).toContainText("view the task");

  // The agent hears action.approved with the edit and the created record.
  const updates = await (
    await request.get("/api/agent/v1/updates?afterSeq=0&wait=5", { headers: chat.auth })
  ).json();
  const approved = updates.events.find((e: { type: string }) => e.type === "action.approved");
  expect(approved.payload.action).toMatchObject({
    id: actionId,
    state: "approved",
    editedPayload: { title: "Buy oat milk", priority: "high" },
    execution: { status: "succeeded", recordType: "task", auto: false },
  });
  const recordId = approved.payload.action.execution.recordId as string;
  expect(recordId).toMatch(/^\w+_/);

  // The link opens the person's task page at that task.
  await card.getByTestId("card-record-link").click();
  await expect(page).toHaveURL(new RegExp(`/records/tasks#${recordId}$`));
  const task = page.locator(`[data-record-id="${recordId}"]`);
  await expect(task.getByTestId("record-title")).toHaveText("Buy oat milk");
  await expect(task).toContainText("high priority");
  await expect(task).toHaveClass(/highlighted/);

  // The agent reads the same task through its own API.
  const tasks = await (
    await request.get(`/api/agent/v1/conversations/${chat.conversationId}/tasks`, {
      headers: chat.auth,
    })
  ).json();
  expect(tasks.tasks.map((t: { id: string }) => t.id)).toContain(recordId);
});

test("reject a card, edit a custom kind as JSON, and let create_note run without a card", async ({
  page,
  request,
}) => {
  const { auth, conversationId } = await chatWithAgent(page, "Riley Rejecter");
  const propose = (data: Record<string, unknown>) =>
    request.post("/api/agent/v1/actions", { headers: auth, data: { conversationId, ...data } });

  expect(
    (await propose({ skill: "create_task", title: "Nope", payload: { title: "Skip" } })).status(),
  ).toBe(201);
  const first = page.getByTestId("approval-card").filter({ hasText: "Nope" });
  // Reject asks why, optionally: rejecting with nothing given is one click more.
  await first.getByTestId("card-reject").click();
  await page.getByTestId("reject-ok").click();
  await expect(first.getByTestId("card-state")).toHaveText("rejected");
  await expect(first.getByTestId("card-rejection")).toHaveCount(0);
  await expect(first.getByTestId("card-approve")).toHaveCount(0);

  expect(
    (
      await propose({ kind: "travel.book", title: "Book a train", payload: { seat: "window" } })
    ).status(),
  ).toBe(201);
  const custom = page.getByTestId("approval-card").filter({ hasText: "Book a train" });
  await custom.getByTestId("card-edit").click();
  await custom.getByTestId("card-json").fill("{ not json");
  await custom.getByTestId("card-json-submit").click();
  await expect(custom.getByTestId("card-json-error")).toContainText("Not valid JSON");
  await custom.getByTestId("card-json").fill('{"seat": "aisle"}');
  await custom.getByTestId("card-json-submit").click();
  await expect(custom.getByTestId("card-state")).toHaveText("approved");
  await expect(custom.getByTestId("card-payload")).toContainText("aisle");

  // Auto-execute: the proposal answers approved at once, and the note is on the notes page.
  await page.getByTestId("chat-settings-toggle").click();
  await page.getByTestId("auto-create_note").check();
  await expect(page.getByTestId("auto-create_note")).toBeChecked();
  await expect
    .poll(async () => {
      const response = await propose({
        skill: "create_note",
        title: "Save the address",
        payload: { title: "Station", content: "Platform 4" },
      });
      return (await response.json()).action?.state;
    })
    .toBe("approved");
  await page.getByTestId("nav-records").click();
  await page.getByTestId("records-tab-notes").click();
  await expect(page.getByTestId("record-title")).toHaveText(["Station"]);
});

test("a person manages their own tasks: add, edit, complete, archive, delete", async ({ page }) => {
  await signUp(page, "Morgan Maker");
  await page.getByTestId("nav-records").click();
  await expect(page).toHaveURL(/\/records\/tasks$/);
  await expect(page.getByTestId("records-empty")).toBeVisible();

  await page.getByTestId("record-new").click();
  const create = page.getByTestId("record-create-form");
  await create.getByTestId("record-create-form-submit").click();
  await expect(create.getByRole("alert")).toContainText(/required/i);
  await create.getByTestId("field-title").fill("Water the plants");
  await create.getByTestId("record-create-form-submit").click();
  const created = page.getByTestId("record").filter({ hasText: "Water the plants" });
  await expect(created).toBeVisible();
  const row = page.locator(`[data-record-id="${await created.getAttribute("data-record-id")}"]`);
  await expect(create.getByTestId("field-title")).toHaveValue("");

  await row.getByTestId("record-edit").click();
  await row.getByTestId("field-title").fill("Water the ferns");
  await row.getByTestId("field-priority").selectOption("normal");
  await row.getByTestId("record-edit-form-submit").click();
  const edited = row;
  await expect(edited.getByTestId("record-title")).toHaveText("Water the ferns");
  await expect(edited).toContainText("normal priority");

  await edited.getByTestId("record-complete").click();
  await expect(edited).toContainText("done");
  await edited.getByTestId("record-archive").click();
  await expect(page.getByTestId("records-empty")).toBeVisible();

  await create.getByTestId("field-title").fill("Throwaway");
  await create.getByTestId("record-create-form-submit").click();
  const throwaway = page.getByTestId("record").filter({ hasText: "Throwaway" });
  await throwaway.getByTestId("record-delete").click();
  await expect(page.getByTestId("records-empty")).toBeVisible();
});
