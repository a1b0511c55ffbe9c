import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addContact, getConsentCard } from "../contacts/contacts";
import type { CoreError } from "../errors";
import { latestSeq, readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { listAgentConversations } from "../messaging/list-agent-conversations";
import { listPersonChatRows } from "../messaging/list-person-chat-rows";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { createTestDeps } from "../testing";
import { blockAgent, setInitiation, unblockAgent } from "./agent-settings";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function strangers() {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Stranger",
    requestedScopes: ["messages:read", "messages:write"],
  });
  return { person, agent };
}

const conversationsOf = (personId: string) =>
  t.deps.db
    .select()
    .from(schema.conversationMembers)
    .where(eq(schema.conversationMembers.userId, personId));

it("blocking or reply-only for an agent never added makes no conversation and shows the person nothing", async () => {
  const { person, agent } = await strangers();
  await blockAgent(t.deps, person.id, agent.id);
  await setInitiation(t.deps, person.id, agent.id, "reply_only");
  expect(await conversationsOf(person.id)).toEqual([]);
  expect(await listAgentConversations(t.deps, agent.id)).toEqual({
    conversations: [],
    hasMore: false,
  });
  expect(await readEvents(t.deps, agent.id, 0, 100)).toEqual({ events: [], nextSeq: 0 });
  expect(await latestSeq(t.deps, agent.id)).toBe(0);
  expect((await listPersonChatRows(t.deps, person.id)).chats).toEqual([]);
  expect(await getConsentCard(t.deps, person.id, agent.id)).toMatchObject({
    isContact: false,
    blocked: true,
    conversationId: null,
  });
  const refused = await sendAgentMessage(
    t.deps,
    { agentId: agent.id },
    { to: person.num, type: "text", content: "hello?" },
  ).catch((error: CoreError) => error);
  // A stranger's block is not the agent's to know: the answer is the one for any stranger.
  expect(refused).toMatchObject({ code: "not_a_contact" });

  // Adding it later is an ordinary add, with the settings the person made.
  await unblockAgent(t.deps, person.id, agent.id);
  expect(await conversationsOf(person.id)).toEqual([]);
  const { conversationId } = await addContact(t.deps, person.id, agent.id, ["messages:write"]);
  const {
    conversations: [listed],
  } = await listAgentConversations(t.deps, agent.id);
  expect(listed).toMatchObject({ id: conversationId, initiation: "reply_only" });
});
