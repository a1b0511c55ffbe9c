import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { getAgentEmailThread } from "../email/get-agent-email-thread";
import { listAgentEmails } from "../email/list-agent-emails";
import { sendAgentEmail } from "../email/send-agent-email";
import { createPost } from "../feed/create-post";
import { listPersonFeed } from "../feed/person-feed";
import { sendAgentMessage } from "../messaging/send-agent-message";
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
  expect(statements.filter((query) => /password_hash|"users"\."email"/.test(query))).toEqual([]);
});
