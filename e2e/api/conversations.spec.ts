import {
  addContact,
  blockAgent,
  createUser,
  removeContact,
  setGrant,
  setInitiation,
} from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

test("GET /conversations: newest activity first, never hidden, grant and initiation as they are now", async ({
  request,
}) => {
  const { agent, auth } = await newAgent({
    scopes: ["messages:read", "messages:write", "notes:read"],
  });
  const api = agentApi(request, auth);
  expect(await (await api.get("/conversations")).json()).toEqual({
    conversations: [],
    hasMore: false,
  });

  const people = [];
  for (const name of ["Ann", "Ben", "Cat"]) {
    const person = await createUser(deps(), { displayName: name });
    const { conversationId } = await addContact(deps(), person.id, agent.id, [
      "messages:write",
      "notes:read",
    ]);
    people.push({ person, conversationId });
  }
  const [ann, ben, cat] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
  // Ann gets the newest message; Cat removes the agent; Ben blocks it and takes replies only.
  expect((await api.send({ to: ann.person.num, type: "text", content: "hi Ann" })).status()).toBe(
    201,
  );
  await removeContact(deps(), cat.person.id, agent.id);
  await blockAgent(deps(), ben.person.id, agent.id);
  await setInitiation(deps(), ben.person.id, agent.id, "reply_only");
  await setGrant(deps(), ann.person.id, agent.id, ["messages:read", "messages:write"]);

  const response = await api.get("/conversations");
  expect(response.status()).toBe(200);
  const { conversations } = await response.json();
  expect(
    conversations.map((c: { participant: { displayName: string } }) => c.participant.displayName),
  ).toEqual(["Ann", "Cat", "Ben"]);
  expect(conversations[0]).toEqual({
    id: ann.conversationId,
    participant: {
      id: ann.person.id,
      num: ann.person.num,
      displayName: "Ann",
      avatarUrl: null,
      userType: "person",
    },
    grantedScopes: ["messages:read", "messages:write"],
    initiation: "any",
    lastMessageAt: expect.any(String),
    createdAt: expect.any(String),
  });
  expect(conversations[1]).toMatchObject({
    id: cat.conversationId,
    grantedScopes: [],
    lastMessageAt: null,
  });
  expect(conversations[2]).toMatchObject({
    id: ben.conversationId,
    grantedScopes: ["messages:write", "notes:read"],
    initiation: "reply_only",
  });

  // A page at a time: `limit` is honoured, `before` goes on after the id given.
  const first = await (await api.get("/conversations?limit=2")).json();
  expect([first.conversations.map((c: { id: string }) => c.id), first.hasMore]).toEqual([
    [ann.conversationId, cat.conversationId],
    true,
  ]);
  const next = await (await api.get(`/conversations?limit=2&before=${cat.conversationId}`)).json();
  expect([next.conversations.map((c: { id: string }) => c.id), next.hasMore]).toEqual([
    [ben.conversationId],
    false,
  ]);
  await expectError(await api.get("/conversations?limit=101"), 400, "validation_error");

  // Another agent sees none of them.
  const other = await newAgent();
  expect(await (await agentApi(request, other.auth).get("/conversations")).json()).toEqual({
    conversations: [],
    hasMore: false,
  });
  await expectError(await api.post("/conversations", {}), 405, "method_not_allowed");
});
