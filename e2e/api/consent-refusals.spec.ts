import {
  addContact,
  blockAgent,
  createUser,
  getAgentUsage,
  removeContact,
  sendPersonMessage,
  setGrant,
  setInitiation,
  setUserSuspended,
  unblockAgent,
} from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

test("each refusal with its code, in order: suspended, blocked, not a contact, scope, reply window", async ({
  request,
}) => {
  const { agent, auth } = await newAgent({ scopes: ["messages:read", "messages:write"] });
  const api = agentApi(request, auth);
  const person = await createUser(deps(), { displayName: "Quinn" });
  // A former contact (a stranger's block is not the agent's to know: never-added.test.ts), with
  // every reason to refuse at once, then lifted one by one.
  await addContact(deps(), person.id, agent.id, []);
  await removeContact(deps(), person.id, agent.id);
  await setInitiation(deps(), person.id, agent.id, "reply_only");
  await blockAgent(deps(), person.id, agent.id);
  await setUserSuspended(deps(), person.id, true);
  const send = () => api.send({ to: person.num, type: "text", content: "hello" });

  await expectError(await send(), 403, "recipient_suspended");
  await setUserSuspended(deps(), person.id, false);
  await expectError(await send(), 403, "blocked");
  await unblockAgent(deps(), person.id, agent.id);
  await expectError(await send(), 403, "not_a_contact");
  const { conversationId } = await addContact(deps(), person.id, agent.id, ["messages:read"]);
  const scope = await expectError(await send(), 403, "scope_not_granted");
  expect(scope.scope).toBe("messages:write");
  expect(scope.message).toContain("messages:write");
  await setGrant(deps(), person.id, agent.id, ["messages:read", "messages:write"]);
  await expectError(await send(), 403, "reply_window_closed");
  await expectError(
    await api.send({ conversationId, type: "text", content: "by conversation" }),
    403,
    "reply_window_closed",
  );
  // Reads are not initiating: a replies-only person's history stays readable.
  expect((await api.get(`/conversations/${conversationId}/messages`)).status()).toBe(200);

  // Their own message opens the 24 h window.
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "question?" });
  expect((await send()).status()).toBe(201);
  await setInitiation(deps(), person.id, agent.id, "any");
  expect((await send()).status()).toBe(201);

  // Refused sends count toward the daily ceiling (suspension is not one of them).
  expect((await getAgentUsage(deps(), agent.id)).usage).toMatchObject({ messages: 2, refused: 5 });
});

test("consent is re-read on every call: a grant change or removal applies to the very next call", async ({
  request,
}) => {
  const { agent, auth } = await newAgent();
  const api = agentApi(request, auth);
  const person = await createUser(deps(), {});
  const { conversationId } = await addContact(deps(), person.id, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  const send = () => api.send({ conversationId, type: "text", content: "x" });
  expect((await send()).status()).toBe(201);
  await setGrant(deps(), person.id, agent.id, ["messages:read"]);
  await expectError(await send(), 403, "scope_not_granted");
  await setGrant(deps(), person.id, agent.id, ["messages:read", "messages:write"]);
  expect((await send()).status()).toBe(201);
  await removeContact(deps(), person.id, agent.id);
  await expectError(await send(), 403, "not_a_contact");
  await expectError(
    await api.post(`/conversations/${conversationId}/typing`),
    403,
    "not_a_contact",
  );
  await addContact(deps(), person.id, agent.id, []);
  const nothing = await expectError(await send(), 403, "scope_not_granted");
  expect(nothing.scope).toBe("messages:write");
});

test("a person who adds the agent tells it contact.added with their grant", async ({ request }) => {
  const { agent, auth } = await newAgent({
    scopes: ["messages:write", "tasks:read", "calls:read"],
  });
  const person = await createUser(deps(), { displayName: "Rae" });
  await addContact(deps(), person.id, agent.id, ["calls:read", "messages:write"]);
  const { events } = await (await agentApi(request, auth).get("/updates")).json();
  expect(events).toEqual([
    {
      id: expect.stringMatching(/^evt_/),
      seq: expect.any(Number),
      type: "contact.added",
      ts: expect.any(String),
      agentId: agent.id,
      payload: {
        user: {
          id: person.id,
          num: person.num,
          displayName: "Rae",
          avatarUrl: null,
          userType: "person",
        },
        scopes: ["messages:write", "calls:read"],
      },
    },
  ]);
});
