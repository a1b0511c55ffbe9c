import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import { endCall } from "../calls/end-call";
import { listPersonCalls } from "../calls/person-calls";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { getAgentEmailThread } from "../email/get-agent-email-thread";
import { listAgentEmails } from "../email/list-agent-emails";
import {
  getPersonEmailThread,
  listPersonEmailThreads,
  markEmailThreadReadByPerson,
} from "../email/person-inbox";
import { sendAgentEmail } from "../email/send-agent-email";
import { sendPersonEmail } from "../email/send-person-email";
import { createPost } from "../feed/create-post";
import { listPersonFeed } from "../feed/person-feed";
import { describeChatAgent } from "../messaging/describe-chat-agent";
import { listAgentConversations } from "../messaging/list-agent-conversations";
import { listPersonChatRows } from "../messaging/list-person-chat-rows";
import { listPersonMessages } from "../messaging/list-person-messages";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { fireRecordDue } from "../records/fire-record-due";
import { createRecord } from "../records/person-records";
import { createTestDeps } from "../testing";
import { createAgent } from "./agents";
import { createUser } from "./users";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let traced: ReturnType<typeof createDb>;
let deps: CoreDeps;
const statements: string[] = [];
beforeAll(async () => {
  t = await createTestDeps();
  traced = createDb(t.config.DATABASE_URL as string, {
    max: 1,
    debug: (_connection, query) => statements.push(query),
  });
  deps = { ...t.deps, db: traced.db, sql: traced.sql };
});
afterAll(async () => {
  await traced.close();
  await t.close();
});

it("what answers with a user reads its public columns, never its password hash or email", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Columns",
    requestedScopes: ["messages:write", "emails:read", "emails:write"],
  });
  const person = await createUser(t.deps, {
    displayName: "Pat",
    email: `pat-${Date.now()}@example.com`,
    password: "correct horse battery",
  });
  await addContact(t.deps, person.id, agent.id, ["messages:write", "emails:read", "emails:write"]);
  const principal = { agentId: agent.id };

  await sendAgentMessage(deps, principal, { to: person.num, type: "text", content: "hi" });
  const { thread } = await sendAgentEmail(deps, principal, {
    to: person.num,
    subject: "Hello",
    content: "A first email",
  });
  await listAgentEmails(deps, agent.id);
  await getAgentEmailThread(deps, agent.id, thread.id);
  await createPost(deps, principal, { texts: ["A post"] });
  await listPersonFeed(deps, person.id, { limit: 10 });

  expect(statements.length).toBeGreaterThan(5);
  expect(statements.filter(readsSecrets)).toEqual([]);
});

/** A statement that reads a user's password hash or email (by name, or as a whole row). */
const readsSecrets = (query: string) =>
  /password_hash|\."email"|"email" from/.test(query) || /select \* from "users"/i.test(query);

it("conversation lists, person threads and chats, calls and record-due jobs read no user's hash or email", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Reads",
    requestedScopes: ["messages:write", "emails:write", "calls:read", "tasks:read"],
  });
  const secret = () => ({ email: `p-${crypto.randomUUID()}@example.com`, password: "a password" });
  const [ann, bob] = [
    await createUser(t.deps, { displayName: "Ann", ...secret() }),
    await createUser(t.deps, { displayName: "Bob", ...secret() }),
  ];
  for (const person of [ann, bob])
    await addContact(t.deps, person.id, agent.id, [
      "messages:write",
      "emails:write",
      "calls:read",
      "tasks:read",
    ]);
  await sendAgentMessage(
    t.deps,
    { agentId: agent.id },
    { to: ann.num, type: "text", content: "hi" },
  );
  const task = await createRecord(t.deps, ann.id, "task", {
    title: "Pay rent",
    dueDate: "2030-04-01T08:00:00.000Z",
  });
  statements.length = 0;

  await listAgentConversations(deps, agent.id);
  const { threadId } = await sendPersonEmail(deps, ann.id, {
    to: [bob.num, agent.num],
    subject: "Plans",
    content: "Friday?",
  });
  await sendPersonEmail(deps, bob.id, { threadId, content: "Yes" });
  await listPersonEmailThreads(deps, ann.id);
  await getPersonEmailThread(deps, ann.id, threadId);
  await markEmailThreadReadByPerson(deps, ann.id, threadId);
  await listPersonChatRows(deps, ann.id);
  await listPersonMessages(deps, ann.id, agent.id);
  await describeChatAgent(deps, ann.id, agent.id);
  await endCall(deps, { participants: [{ user: ann.num }, { user: bob.id }], duration: 60 });
  await listPersonCalls(deps, ann.id);
  expect(
    await fireRecordDue(deps, { type: "task", id: task.id, at: "2030-04-01T08:00:00.000Z" }),
  ).toBe(1);

  expect(statements.length).toBeGreaterThan(10);
  expect(statements.filter(readsSecrets)).toEqual([]);
});
