import type { AgentHistoryQuery } from "@switchboard/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { blockAgent } from "../consent/agent-settings";
import { removeContact } from "../contacts/contacts";
import { setUserSuspended } from "../identity/users";
import { coreFailure, createTestDeps, testChat } from "../testing";
import { listAgentMessages, listAgentMessagesJson } from "./list-agent-messages";
import { sendPersonMessage } from "./send-person-message";

// The route's history is one statement: the access check, the `before` anchor and the body
// Postgres writes. It must answer what checkAgentAccess and the objects answer, byte for byte.
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const both = (agentId: string, conversationId: string, query: AgentHistoryQuery) =>
  Promise.all([
    coreFailure(listAgentMessagesJson(t.deps, agentId, conversationId, query)),
    coreFailure(listAgentMessages(t.deps, agentId, conversationId, query)),
  ]);

/** The one-statement refusal is checkAgentAccess's: code, words and details. */
async function expectSameRefusal(
  agentId: string,
  conversationId: string,
  code: string,
  query: AgentHistoryQuery = { limit: 50 },
) {
  const [json, objects] = await both(agentId, conversationId, query);
  expect(json?.code).toBe(code);
  expect({ message: json?.message, details: json?.details }).toEqual({
    message: objects?.message,
    details: objects?.details,
  });
}

it("refuses as the access check does, in its order", async () => {
  const { agent, person, conversationId, send } = await testChat(t.deps);
  const { message } = await send({ type: "text", content: "hi" });
  await expectSameRefusal(agent.id, "cnv_nothing_here", "not_found");
  await expectSameRefusal((await testChat(t.deps)).agent.id, conversationId, "forbidden");
  const mine = await testChat(t.deps);
  await expectSameRefusal(mine.agent.id, mine.conversationId, "not_found", {
    limit: 5,
    before: message.id, // a message of another conversation is no anchor here
  });
  await expectSameRefusal(agent.id, conversationId, "not_found", {
    limit: 5,
    before: "msg_nothing_here",
  });

  const writeOnly = await testChat(t.deps, ["messages:write"]);
  await expectSameRefusal(writeOnly.agent.id, writeOnly.conversationId, "scope_not_granted");

  await removeContact(t.deps, person.id, agent.id);
  await expectSameRefusal(agent.id, conversationId, "not_a_contact");
  await blockAgent(t.deps, person.id, agent.id);
  await expectSameRefusal(agent.id, conversationId, "blocked");
  // Refused before its anchor is looked for.
  await expectSameRefusal(agent.id, conversationId, "blocked", { limit: 5, before: "msg_none" });
});

it("pages back with before and hasMore, the same bytes as the objects, a suspended person's too", async () => {
  const { agent, person, conversationId, send } = await testChat(t.deps);
  const json = async (query: AgentHistoryQuery) =>
    (await listAgentMessagesJson(t.deps, agent.id, conversationId, query)).text;
  const objects = async (query: AgentHistoryQuery) =>
    JSON.stringify(await listAgentMessages(t.deps, agent.id, conversationId, query));

  expect(await json({ limit: 3 })).toBe('{"messages":[],"hasMore":false}');
  for (let i = 0; i < 7; i++)
    if (i % 2) await send({ type: "text", content: `from the agent ${i}` });
    else await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: `${i}` });
  await send({ type: "location", content: "here", latitude: "1", longitude: "2" });

  const seen: string[] = [];
  let query: AgentHistoryQuery = { limit: 3 };
  for (;;) {
    const text = await json(query);
    expect(text).toBe(await objects(query));
    const page = JSON.parse(text) as { messages: { id: string }[]; hasMore: boolean };
    seen.unshift(...page.messages.map((m) => m.id));
    if (!page.hasMore) break;
    query = { limit: 3, before: page.messages[0]?.id };
  }
  expect(seen).toHaveLength(8);
  expect(JSON.parse(await json({ limit: 8 })).hasMore).toBe(false);
  expect(JSON.parse(await json({ limit: 7 })).hasMore).toBe(true);

  // A suspended person's history stays readable under their grant (decision 0039).
  await setUserSuspended(t.deps, person.id, true);
  expect(await json({ limit: 50 })).toBe(await objects({ limit: 50 }));
});
