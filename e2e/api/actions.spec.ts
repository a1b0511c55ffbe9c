import {
  addContact,
  createRecord,
  createUser,
  decideAction,
  setAutoExecute,
} from "@switchboard/core";
import { deps, newAgent } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

async function setup(grant: string[]) {
  const scopes = [
    "messages:read",
    "messages:write",
    "tasks:read",
    "tasks:write",
    "notes:write",
  ] as const;
  const setup = await newAgent({ scopes: [...scopes] });
  const person = await createUser(deps(), { displayName: "Approver" });
  const { conversationId } = await addContact(deps(), person.id, setup.agent.id, grant);
  return { ...setup, person, conversationId };
}

test("a create_task card, approved with an edit, runs on the person's account; the agent sees it", async ({
  request,
}) => {
  const { auth, person, conversationId } = await setup([
    "messages:write",
    "tasks:read",
    "tasks:write",
  ]);
  const proposed = await request.post("/api/agent/v1/actions", {
    headers: auth,
    data: {
      to: person.num,
      skill: "create_task",
      title: "Add a task",
      payload: { title: "Call the bank" },
    },
  });
  expect(proposed.status(), await proposed.text()).toBe(201);
  const { action, message } = await proposed.json();
  expect(action).toMatchObject({
    state: "pending",
    kind: "create_task",
    skill: "create_task",
    execution: null,
    conversationId,
  });
  expect(message.agentActionId).toBe(action.id);

  const cursor = (
    await (await request.get("/api/agent/v1/updates/cursor", { headers: auth })).json()
  ).seq;
  const waiting = request.get(`/api/agent/v1/updates?afterSeq=${cursor}&wait=10`, {
    headers: auth,
  });
  await decideAction(deps(), {
    userRef: person.id,
    actionId: action.id,
    approve: true,
    editedPayload: { title: "Call the bank at 9", priority: "high" },
  });
  const [event] = (await (await waiting).json()).events;
  expect(event.type).toBe("action.approved");
  expect(event.payload.action).toMatchObject({
    id: action.id,
    state: "approved",
    editedPayload: { title: "Call the bank at 9", priority: "high" },
    execution: {
      status: "succeeded",
      recordType: "task",
      recordId: expect.stringMatching(/^tsk_/),
      auto: false,
    },
  });

  const tasks = await (
    await request.get(`/api/agent/v1/conversations/${conversationId}/tasks`, { headers: auth })
  ).json();
  expect(tasks.tasks).toEqual([
    {
      id: event.payload.action.execution.recordId,
      title: "Call the bank at 9",
      description: null,
      dueDate: null,
      status: "open",
      priority: "high",
      createdAt: expect.any(String),
      completedAt: null,
    },
  ]);
  expect(
    (await (await request.get(`/api/agent/v1/actions/${action.id}`, { headers: auth })).json())
      .action.state,
  ).toBe("approved");
  const listed = await (
    await request.get(`/api/agent/v1/actions?state=approved&conversationId=${conversationId}`, {
      headers: auth,
    })
  ).json();
  expect(listed.actions.map((a: { id: string }) => a.id)).toEqual([action.id]);
});

test("proposal refusals and validation", async ({ request }) => {
  const { auth, person } = await setup(["messages:write"]);
  const post = (data: Record<string, unknown>) =>
    request.post("/api/agent/v1/actions", {
      headers: auth,
      data: { to: person.num, title: "T", ...data },
    });
  await expectError(
    await post({ kind: "k", expiresAt: new Date(Date.now() + 30_000).toISOString() }),
    400,
    "invalid_expiry",
  );
  await expectError(
    await post({ skill: "create_task", payload: { title: "x", owner: "me" } }),
    400,
    "invalid_payload",
  );
  expect(
    (
      await expectError(
        await post({ skill: "create_task", payload: { title: "x" } }),
        403,
        "scope_not_granted",
      )
    ).scope,
  ).toBe("tasks:write");
  await expectError(await post({ kind: "Bad Kind" }), 400, "validation_error");
  await expectError(await post({}), 400, "validation_error");
  await expectError(
    await request.get("/api/agent/v1/actions?limit=0", { headers: auth }),
    400,
    "validation_error",
  );
  await expectError(
    await request.get("/api/agent/v1/actions/act_nope", { headers: auth }),
    404,
    "not_found",
  );
  for (let i = 0; i < 10; i++) expect((await post({ kind: "k" })).status()).toBe(201);
  await expectError(await post({ kind: "k" }), 409, "too_many_pending");
});

test("auto-execute answers already approved; records need their read scope", async ({
  request,
}) => {
  const { auth, person, agent, conversationId } = await setup(["messages:write", "notes:write"]);
  await setAutoExecute(deps(), person.id, agent.id, "create_note", true);
  const { action } = await (
    await request.post("/api/agent/v1/actions", {
      headers: auth,
      data: {
        conversationId,
        skill: "create_note",
        title: "Note it",
        payload: { content: "milk" },
      },
    })
  ).json();
  expect(action).toMatchObject({
    state: "approved",
    execution: { status: "succeeded", recordType: "note", auto: true },
  });
  await createRecord(deps(), person.id, "task", { title: "private" });
  const denied = await expectError(
    await request.get(`/api/agent/v1/conversations/${conversationId}/tasks`, { headers: auth }),
    403,
    "scope_not_granted",
  );
  expect(denied.scope).toBe("tasks:read");
  await expectError(
    await request.get(`/api/agent/v1/conversations/${conversationId}/notes`, { headers: auth }),
    403,
    "scope_not_granted",
  );
});
