import {
  AgentConversationsQuery,
  AgentConversationsResponse,
  AgentEmailsResponse,
  AgentEmailThreadQuery,
  AgentEmailThreadResponse,
  PersonEmailThreadPage,
} from "@switchboard/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { listAgentConversations } from "../messaging/list-agent-conversations";
import { codeOf, createTestDeps } from "../testing";
import { getAgentEmailThread } from "./get-agent-email-thread";
import { listAgentEmails } from "./list-agent-emails";
import { getPersonEmailThread, listPersonEmailThreads } from "./person-inbox";
import { replyAgentEmail } from "./reply-agent-email";
import { sendAgentEmail } from "./send-agent-email";

/**
 * The lists an agent reads grow without bound (contacts, threads, a thread's emails): each is
 * answered a page at a time, the spec's shape as the first page, with `hasMore`.
 */
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const scopes = ["emails:read", "emails:write"] as const;

it("pages conversations, email threads and a thread's emails with limit, before and hasMore", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Pager",
    requestedScopes: [...scopes],
  });
  const principal = { agentId: agent.id };
  const people = [];
  const threads: string[] = [];
  for (const name of ["A", "B", "C"]) {
    const person = await createUser(t.deps, { displayName: name });
    await addContact(t.deps, person.id, agent.id, [...scopes]);
    people.push(person);
    t.clock.advance(60_000);
    const sent = await sendAgentEmail(t.deps, principal, {
      to: person.num,
      subject: `To ${name}`,
      content: "first",
    });
    threads.push(sent.thread.id);
  }
  const [first] = threads as [string, string, string];
  for (const n of [2, 3, 4, 5]) {
    t.clock.advance(60_000);
    await replyAgentEmail(t.deps, principal, first, { content: `email ${n}` });
  }

  // Conversations, newest activity first (C added last), two at a time.
  const page = (query: object) => AgentConversationsQuery.parse(query);
  const all = await listAgentConversations(t.deps, agent.id);
  expect(AgentConversationsResponse.parse(all)).toEqual(all);
  expect([all.conversations.length, all.hasMore]).toEqual([3, false]);
  const one = await listAgentConversations(t.deps, agent.id, page({ limit: "2" }));
  expect([one.conversations.map((c) => c.participant.displayName), one.hasMore]).toEqual([
    ["C", "B"],
    true,
  ]);
  const two = await listAgentConversations(
    t.deps,
    agent.id,
    page({ limit: "2", before: one.conversations[1]?.id }),
  );
  expect([two.conversations.map((c) => c.participant.displayName), two.hasMore]).toEqual([
    ["A"],
    false,
  ]);

  // Threads, newest activity first: A's thread got the latest replies.
  const threadsPage = await listAgentEmails(t.deps, agent.id, { limit: 2 });
  expect(AgentEmailsResponse.parse(threadsPage)).toEqual(threadsPage);
  expect([threadsPage.threads.map((th) => th.subject), threadsPage.hasMore]).toEqual([
    ["To A", "To C"],
    true,
  ]);
  const rest = await listAgentEmails(t.deps, agent.id, { limit: 2, before: threads[2] });
  expect([rest.threads.map((th) => th.subject), rest.hasMore]).toEqual([["To B"], false]);

  // The inbox read as a participant reads it (here the agent's own), the same order and pages.
  const inbox = await listPersonEmailThreads(t.deps, agent.id, { limit: 2 });
  expect([inbox.threads.map((th) => th.id), inbox.hasMore]).toEqual([
    [threads[0], threads[2]],
    true,
  ]);
  const inboxRest = await listPersonEmailThreads(t.deps, agent.id, {
    limit: 2,
    before: threads[2],
  });
  expect([inboxRest.threads.map((th) => th.id), inboxRest.hasMore]).toEqual([[threads[1]], false]);

  // A thread's emails: the newest two, oldest first within the page, then the ones before.
  const newest = await getAgentEmailThread(t.deps, agent.id, first, { limit: 2 });
  expect(AgentEmailThreadResponse.parse(newest)).toEqual(newest);
  expect([newest.messages.map((m) => m.content), newest.hasMore]).toEqual([
    ["email 4", "email 5"],
    true,
  ]);
  const older = await getAgentEmailThread(
    t.deps,
    agent.id,
    first,
    AgentEmailThreadQuery.parse({ limit: "2", before: newest.messages[0]?.id }),
  );
  expect([older.messages.map((m) => m.content), older.hasMore]).toEqual([
    ["email 2", "email 3"],
    true,
  ]);
  // An older page still shows the thread as it stands: its last email is the newest.
  expect(older.thread.lastMessage?.content).toBe("email 5");
  expect((await getAgentEmailThread(t.deps, agent.id, first)).messages).toHaveLength(5);

  // The person's view of the same thread is bounded the same way.
  const seen = await getPersonEmailThread(t.deps, people[0]?.id as string, first, { limit: 3 });
  expect(PersonEmailThreadPage.parse(seen)).toEqual(seen);
  expect([seen.messages.map((m) => m.content), seen.hasMore]).toEqual([
    ["email 3", "email 4", "email 5"],
    true,
  ]);

  // A `before` from elsewhere is not found, never a silent empty page.
  expect(await codeOf(listAgentConversations(t.deps, agent.id, page({ before: "cnv_x" })))).toBe(
    "not_found",
  );
  expect(await codeOf(listAgentEmails(t.deps, agent.id, { limit: 2, before: "eth_x" }))).toBe(
    "not_found",
  );
  expect(
    await codeOf(getAgentEmailThread(t.deps, agent.id, first, { limit: 2, before: "eml_x" })),
  ).toBe("not_found");
  // Every list is bounded: no limit above 100.
  for (const limit of ["0", "101", "x"])
    expect(AgentConversationsQuery.safeParse({ limit }).success, limit).toBe(false);
  expect(AgentEmailThreadQuery.parse({})).toEqual({ limit: 50 });
});

it("pages a person's inbox, newest activity first, with before and hasMore", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Writer",
    requestedScopes: [...scopes],
  });
  const person = await createUser(t.deps, { displayName: "Reader" });
  const stranger = await createUser(t.deps, { displayName: "Stranger" });
  await addContact(t.deps, person.id, agent.id, [...scopes]);
  await addContact(t.deps, stranger.id, agent.id, [...scopes]);
  const ids: string[] = [];
  for (const subject of ["One", "Two", "Three"]) {
    t.clock.advance(120_000);
    const sent = await sendAgentEmail(
      t.deps,
      { agentId: agent.id },
      {
        to: person.num,
        subject,
        content: subject,
      },
    );
    ids.push(sent.thread.id);
  }
  // "One" gets the newest email: it moves to the top.
  t.clock.advance(120_000);
  await replyAgentEmail(t.deps, { agentId: agent.id }, ids[0] as string, { content: "again" });

  const subjects = (page: Awaited<ReturnType<typeof listPersonEmailThreads>>) => [
    page.threads.map((thread) => thread.subject),
    page.hasMore,
  ];
  const first = await listPersonEmailThreads(t.deps, person.id, { limit: 2 });
  expect(subjects(first)).toEqual([["One", "Three"], true]);
  const next = await listPersonEmailThreads(t.deps, person.id, {
    limit: 2,
    before: first.threads.at(-1)?.id,
  });
  expect(subjects(next)).toEqual([["Two"], false]);
  expect(subjects(await listPersonEmailThreads(t.deps, person.id))).toEqual([
    ["One", "Three", "Two"],
    false,
  ]);
  // A `before` that is not one of the person's threads is not found, never an empty page.
  const strangers = await sendAgentEmail(
    t.deps,
    { agentId: agent.id },
    {
      to: stranger.num,
      subject: "Theirs",
      content: "x",
    },
  );
  expect(
    await codeOf(
      listPersonEmailThreads(t.deps, person.id, { limit: 2, before: strangers.thread.id }),
    ),
  ).toBe("not_found");
  expect(
    await codeOf(listPersonEmailThreads(t.deps, person.id, { limit: 2, before: "eth_x" })),
  ).toBe("not_found");
});
