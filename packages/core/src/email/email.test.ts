import {
  AgentEmailsResponse,
  AgentEmailThreadResponse,
  type AgentEvent,
  type AgentScope,
  AgentSendEmailResponse,
  EmailReceivedFull,
  EmailReceivedMasked,
  PersonEmailThreadPage,
} from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { blockAgent, setInitiation, unblockAgent } from "../consent/agent-settings";
import { addContact, removeContact, setGrant } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import type { CoreError } from "../errors";
import { readEvents } from "../events/read-events";
import { createAgent, findAgent, resumeAgent } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { codeOf, createTestDeps } from "../testing";
import { getAgentEmailThread } from "./get-agent-email-thread";
import { listAgentEmails } from "./list-agent-emails";
import {
  getPersonEmailThread,
  listPersonEmailThreads,
  markEmailThreadReadByPerson,
} from "./person-inbox";
import { replyAgentEmail } from "./reply-agent-email";
import { sendAgentEmail } from "./send-agent-email";
import { sendPersonEmail } from "./send-person-email";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const HOUR = 3600_000;
const EMAIL_SCOPES: AgentScope[] = [
  "messages:read",
  "messages:write",
  "emails:read",
  "emails:write",
];

/** An agent asking for everything email needs, and a person who added it with `grant`. */
async function inbox(grant: AgentScope[] = EMAIL_SCOPES, deps: CoreDeps = t.deps) {
  const owner = await createUser(deps, {});
  const person = await createUser(deps, { displayName: "Pat" });
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Mailer",
    requestedScopes: EMAIL_SCOPES,
  });
  const { conversationId } = await addContact(deps, person.id, agent.id, grant);
  const principal = { agentId: agent.id };
  return {
    owner,
    person,
    agent,
    conversationId,
    /** The agent starts a thread with the person. */
    start: (subject = "Hello", content = "First email", d = deps) =>
      sendAgentEmail(d, principal, { to: person.num, subject, content }),
    reply: (threadId: string, content = "A reply", d = deps) =>
      replyAgentEmail(d, principal, threadId, { content }),
    /** The person emails the agent: a new thread, or a reply in `threadId`. */
    write: (input: { threadId?: string; subject?: string; content?: string }) =>
      sendPersonEmail(deps, person.id, {
        ...(input.threadId ? { threadId: input.threadId } : { to: [agent.num] }),
        ...(input.subject !== undefined && { subject: input.subject }),
        ...(!input.threadId && input.subject === undefined && { subject: "From Pat" }),
        content: input.content ?? "Pat writes",
      }),
  };
}

const emailEvents = async (agentId: string) =>
  (await readEvents(t.deps, agentId, 0, 100)).events.filter(
    (e): e is Extract<AgentEvent, { type: "email.received" }> => e.type === "email.received",
  );

describe("the agent emails a person", () => {
  it("starts a 1:1 thread: the answer, the agent's list and the person's inbox", async () => {
    const { start, agent, person } = await inbox();
    const sent = AgentSendEmailResponse.parse(await start("Your booking", "It is confirmed."));
    expect(sent.thread).toMatchObject({
      id: expect.stringMatching(/^eth_/),
      subject: "Your booking",
      participant: { id: person.id, num: person.num, userType: "person" },
      grantedScopes: EMAIL_SCOPES,
      unreadCount: 0,
      startedById: agent.id,
      lastMessage: { id: sent.message.id, content: "It is confirmed." },
    });
    expect(sent.message).toEqual({
      id: expect.stringMatching(/^eml_/),
      threadId: sent.thread.id,
      senderId: agent.id,
      senderNum: agent.num,
      content: "It is confirmed.",
      createdAt: t.clock.now().toISOString(),
    });
    expect(AgentEmailsResponse.parse(await listAgentEmails(t.deps, agent.id)).threads).toEqual([
      sent.thread,
    ]);

    const {
      threads: [listed],
    } = await listPersonEmailThreads(t.deps, person.id);
    expect(listed).toMatchObject({
      id: sent.thread.id,
      subject: "Your booking",
      isGroup: false,
      participants: [{ id: agent.id, userType: "agent" }],
      unreadCount: 1,
    });
    await markEmailThreadReadByPerson(t.deps, person.id, sent.thread.id);
    expect((await listPersonEmailThreads(t.deps, person.id)).threads[0]?.unreadCount).toBe(0);
    // The agent's own email emits nothing to it.
    expect(await emailEvents(agent.id)).toEqual([]);
    // Every email counts as a message.
    expect((await getAgentUsage(t.deps, agent.id)).usage.messages).toBe(1);
  });

  it("refuses in the access check's order, counting each refused send", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Mailer",
      requestedScopes: EMAIL_SCOPES,
    });
    const person = await createUser(t.deps, {});
    const send = () =>
      sendAgentEmail(t.deps, { agentId: agent.id }, { to: person.num, subject: "S", content: "C" });
    // A former contact: a block by someone who never added the agent reads as not_a_contact.
    await addContact(t.deps, person.id, agent.id, []);
    await removeContact(t.deps, person.id, agent.id);
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    await blockAgent(t.deps, person.id, agent.id);
    await setUserSuspended(t.deps, person.id, true);
    expect(await codeOf(send())).toBe("recipient_suspended");
    await setUserSuspended(t.deps, person.id, false);
    expect(await codeOf(send())).toBe("blocked");
    await unblockAgent(t.deps, person.id, agent.id);
    expect(await codeOf(send())).toBe("not_a_contact");
    await addContact(t.deps, person.id, agent.id, ["messages:write", "emails:read"]);
    const scope = await send().catch((error: CoreError) => error);
    expect(scope).toMatchObject({ code: "scope_not_granted", details: { scope: "emails:write" } });
    await setGrant(t.deps, person.id, agent.id, ["emails:write"]);
    expect(await codeOf(send())).toBe("reply_window_closed");
    expect(
      await codeOf(
        sendAgentEmail(
          t.deps,
          { agentId: agent.id },
          { to: "999-999-998", subject: "S", content: "C" },
        ),
      ),
    ).toBe("not_found");
    // blocked, not_a_contact, scope_not_granted, reply_window_closed: four refused sends.
    expect((await getAgentUsage(t.deps, agent.id)).usage).toMatchObject({
      messages: 0,
      refused: 4,
    });
  });
});

describe("the replies-only window", () => {
  it("opens a new thread only after the person's chat message, for 24 h", async () => {
    const { start, person, agent } = await inbox();
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    expect(await codeOf(start())).toBe("reply_window_closed");
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "hi" });
    expect(await codeOf(start())).toBe("ok");
    t.clock.advance(24 * HOUR);
    expect(await codeOf(start())).toBe("reply_window_closed");
  });

  it("for a reply, also opens 24 h after the person wrote in that thread — and only there", async () => {
    const { start, reply, write, person, agent, conversationId } = await inbox();
    const mine = await start("Agent's thread");
    const other = await start("Another thread");
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    expect(await codeOf(reply(mine.thread.id))).toBe("reply_window_closed");

    // The person answers in the agent's thread: a reply there is open, nothing else is.
    t.clock.advance(HOUR);
    await write({ threadId: mine.thread.id });
    expect(await codeOf(reply(mine.thread.id))).toBe("ok");
    expect(await codeOf(reply(other.thread.id))).toBe("reply_window_closed");
    expect(await codeOf(start())).toBe("reply_window_closed");
    expect(
      await codeOf(
        sendAgentMessage(
          t.deps,
          { agentId: agent.id },
          { conversationId, type: "text", content: "chat" },
        ),
      ),
    ).toBe("reply_window_closed");

    // A thread the person started counts the same way.
    const theirs = await write({ subject: "Pat's question" });
    expect(await codeOf(reply(theirs.threadId))).toBe("ok");

    // Each refusal counted toward the day's refused-send ceiling.
    expect((await getAgentUsage(t.deps, agent.id)).usage.refused).toBe(4);

    // 24 h after their email the thread's window is closed again.
    t.clock.advance(24 * HOUR);
    expect(await codeOf(reply(mine.thread.id))).toBe("reply_window_closed");
    expect(await codeOf(reply(theirs.threadId))).toBe("reply_window_closed");

    // A chat message opens replies in every thread (and new threads).
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "back" });
    expect(await codeOf(reply(other.thread.id))).toBe("ok");
    expect(await codeOf(start())).toBe("ok");
  });
});

describe("limits count emails as messages", () => {
  const withEnv = (env: Record<string, string>): CoreDeps => ({
    ...t.deps,
    config: loadConfig({ DATABASE_URL: t.config.DATABASE_URL, ...env }),
  });

  it("per recipient, together with chat messages: conversation_rate_limited", async () => {
    const d = withEnv({ LIMIT_PER_RECIPIENT_PER_MIN: "3" });
    t.clock.set("2026-06-01T10:00:00Z");
    const { start, reply, agent, conversationId } = await inbox();
    const { thread } = await start("S", "one", d);
    await sendAgentMessage(
      d,
      { agentId: agent.id },
      { conversationId, type: "text", content: "x" },
    );
    expect(await codeOf(reply(thread.id, "three", d))).toBe("ok");
    expect(await codeOf(reply(thread.id, "four", d))).toBe("conversation_rate_limited");
    expect(await codeOf(start("S", "five", d))).toBe("conversation_rate_limited");
    t.clock.advance(60_000);
    expect(await codeOf(reply(thread.id, "next minute", d))).toBe("ok");
  });

  it("per minute across recipients: rate_limited", async () => {
    const d = withEnv({ LIMIT_MESSAGES_PER_MIN: "2" });
    t.clock.set("2026-06-01T11:00:00Z");
    const first = await inbox();
    const second = await addContact(
      t.deps,
      (await createUser(t.deps, {})).id,
      first.agent.id,
      EMAIL_SCOPES,
    );
    expect(await codeOf(first.start("S", "a", d))).toBe("ok");
    await sendAgentMessage(
      d,
      { agentId: first.agent.id },
      { conversationId: second.conversationId, type: "text", content: "b" },
    );
    expect(await codeOf(first.start("S", "c", d))).toBe("rate_limited");
  });

  it("a person's emails to people have the same limits: per recipient, and per minute across them", async () => {
    const d = withEnv({ LIMIT_PER_RECIPIENT_PER_MIN: "2", LIMIT_MESSAGES_PER_MIN: "5" });
    t.clock.set("2026-06-01T12:00:00Z");
    const [sender, target, other, third, fourth, fifth] = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(() => createUser(t.deps, {})),
    );
    if (!sender || !target || !other || !third || !fourth || !fifth) throw new Error("no users");
    const email = (to: string[], threadId?: string) =>
      codeOf(
        sendPersonEmail(
          d,
          sender.id,
          threadId
            ? { threadId, content: "again" }
            : {
                to,
                subject: "Hi",
                content: "spam?",
              },
        ),
      );
    expect(await email([target.num])).toBe("ok");
    expect(await email([target.num])).toBe("ok");
    // A third to the same person this minute, new thread or group alike: refused, and stored nothing.
    expect(await email([target.num])).toBe("conversation_rate_limited");
    expect(await email([other.num, target.num])).toBe("conversation_rate_limited");
    expect((await listPersonEmailThreads(t.deps, target.id)).threads).toHaveLength(2);
    expect((await listPersonEmailThreads(t.deps, other.id)).threads).toHaveLength(0);
    // Across recipients: 5 a minute (the refused ones used up nothing).
    const group = await sendPersonEmail(d, sender.id, {
      to: [other.num, third.num],
      subject: "Group",
      content: "3",
    });
    expect(await email([], group.threadId)).toBe("ok");
    expect(await email([fourth.num])).toBe("ok");
    expect(await email([fifth.num])).toBe("rate_limited");
    expect((await listPersonEmailThreads(t.deps, fifth.id)).threads).toHaveLength(0);
    t.clock.advance(60_000);
    expect(await email([target.num])).toBe("ok");
  });

  it("the daily message ceiling pauses the agent", async () => {
    const d = withEnv({ LIMIT_DAILY_MESSAGES: "3" });
    t.clock.set("2026-06-02T09:00:00Z");
    const { start, reply, agent } = await inbox();
    const { thread } = await start("S", "1", d);
    await reply(thread.id, "2", d);
    expect((await findAgent(t.deps, agent.id)).paused).toBeNull();
    await reply(thread.id, "3", d);
    expect((await findAgent(t.deps, agent.id)).paused).toMatchObject({
      reason: "ceiling:messages",
    });
    await resumeAgent(t.deps, agent.id);
  });

  it("the daily refused-send ceiling counts refused emails and pauses the agent", async () => {
    const d = withEnv({ LIMIT_DAILY_REFUSED: "2" });
    t.clock.set("2026-06-03T09:00:00Z");
    const { start, reply, agent, person } = await inbox(["emails:read"]);
    const { threadId } = await sendPersonEmail(t.deps, person.id, {
      to: [agent.num],
      subject: "Q",
      content: "?",
    });
    expect(await codeOf(start("S", "c", d))).toBe("scope_not_granted");
    expect((await findAgent(t.deps, agent.id)).paused).toBeNull();
    expect(await codeOf(reply(threadId, "r", d))).toBe("scope_not_granted");
    expect((await findAgent(t.deps, agent.id)).paused).toMatchObject({
      reason: "ceiling:refused",
    });
  });
});

describe("masking: grant × who started the thread × new or reply", () => {
  const cases = [
    { grant: true, starter: "person", kind: "new" },
    { grant: false, starter: "person", kind: "new" },
    { grant: true, starter: "person", kind: "reply" },
    { grant: false, starter: "person", kind: "reply" },
    { grant: true, starter: "agent", kind: "reply" },
    { grant: false, starter: "agent", kind: "reply" },
  ] as const;

  for (const { grant, starter, kind } of cases)
    it(`${grant ? "with" : "without"} emails:read, ${starter}'s thread, ${kind}`, async () => {
      const scopes = grant ? EMAIL_SCOPES : EMAIL_SCOPES.filter((s) => s !== "emails:read");
      const setup = await inbox(scopes);
      const { agent, person, write } = setup;
      const subject = `${starter} subject`;
      const threadId =
        starter === "agent"
          ? (await setup.start(subject, "agent's first")).thread.id
          : kind === "reply"
            ? (await write({ subject, content: "person's first" })).threadId
            : undefined;
      const sent = await write(
        threadId ? { threadId, content: "the email" } : { subject, content: "the email" },
      );

      // The event for this email (the last one), masked by the grant.
      const event = (await emailEvents(agent.id)).at(-1);
      const subjectShown = grant || starter === "agent";
      if (grant)
        expect(EmailReceivedFull.parse(event?.payload)).toEqual({
          threadId: sent.threadId,
          subject,
          from: person,
          email: sent.message,
        });
      else
        expect(EmailReceivedMasked.parse(event?.payload)).toEqual({
          threadId: sent.threadId,
          subject: subjectShown ? subject : null,
          from: person,
          email: null,
          accessDenied: {
            scope: "emails:read",
            message: "Pat has not granted emails:read, so the content is withheld",
          },
        });
      // The stored flag never reaches the wire.
      expect(event?.payload).not.toHaveProperty("agentStartedThread");

      // The inbox and the thread follow the same rules; the agent's own emails always show.
      const [listed] = (await listAgentEmails(t.deps, agent.id)).threads;
      expect(listed).toMatchObject({
        id: sent.threadId,
        subject: subjectShown ? subject : null,
        unreadCount: kind === "new" ? 1 : starter === "agent" ? 1 : 2,
        lastMessage: grant
          ? { id: sent.message.id, content: "the email" }
          : { id: sent.message.id, content: null, accessDenied: { scope: "emails:read" } },
      });
      const read = AgentEmailThreadResponse.parse(
        await getAgentEmailThread(t.deps, agent.id, sent.threadId),
      );
      expect(read.thread).toMatchObject({
        subject: subjectShown ? subject : null,
        unreadCount: 0,
      });
      for (const message of read.messages)
        if (message.senderId === agent.id || grant) expect(message.content).not.toBeNull();
        else
          expect(message).toMatchObject({ content: null, accessDenied: { scope: "emails:read" } });
      expect(read.messages.map((m) => m.id).at(-1)).toBe(sent.message.id);
      // Reading marked it read.
      expect((await listAgentEmails(t.deps, agent.id)).threads[0]?.unreadCount).toBe(0);
      // The person sees their own thread in full either way.
      const page = PersonEmailThreadPage.parse(
        await getPersonEmailThread(t.deps, person.id, sent.threadId),
      );
      expect(page.thread.subject).toBe(subject);
      expect(page.messages.every((m) => m.content.length > 0)).toBe(true);
    });

  it("applies the grant as it is when read: revoke, block and grant again", async () => {
    const { agent, person, write } = await inbox();
    const { threadId, message } = await write({ subject: "Secret plan", content: "the plan" });
    const shown = async () => (await emailEvents(agent.id)).at(-1)?.payload;
    expect(await shown()).toMatchObject({ subject: "Secret plan", email: { content: "the plan" } });
    await setGrant(t.deps, person.id, agent.id, ["emails:write"]);
    expect(await shown()).toMatchObject({ subject: null, email: null });
    expect((await getAgentEmailThread(t.deps, agent.id, threadId)).messages[0]?.content).toBeNull();
    await setGrant(t.deps, person.id, agent.id, ["emails:read"]);
    expect(await shown()).toMatchObject({ email: { id: message.id } });
    await blockAgent(t.deps, person.id, agent.id);
    expect(await shown()).toMatchObject({ email: null });
    expect((await listAgentEmails(t.deps, agent.id)).threads[0]?.subject).toBeNull();
    await unblockAgent(t.deps, person.id, agent.id);
    await removeContact(t.deps, person.id, agent.id);
    // Entries are never hidden: removed, the thread stays listed with nothing granted.
    expect((await listAgentEmails(t.deps, agent.id)).threads[0]).toMatchObject({
      id: threadId,
      grantedScopes: [],
      subject: null,
      lastMessage: { content: null },
    });
  });
});

describe("threads the agent cannot open", () => {
  it("404 for another agent's thread or an unknown one; 400 unsupported for a group", async () => {
    const a = await inbox();
    const b = await inbox();
    const { thread } = await b.start();
    expect(await codeOf(getAgentEmailThread(t.deps, a.agent.id, thread.id))).toBe("not_found");
    expect(await codeOf(a.reply(thread.id))).toBe("not_found");
    expect(await codeOf(getAgentEmailThread(t.deps, a.agent.id, "eth_nope"))).toBe("not_found");

    // A group the person starts with the agent and another person.
    const friend = await createUser(t.deps, { displayName: "Friend" });
    const group = await sendPersonEmail(t.deps, a.person.id, {
      to: [a.agent.num, friend.num],
      subject: "Dinner plans",
      content: "Who is in?",
    });
    expect(await codeOf(getAgentEmailThread(t.deps, a.agent.id, group.threadId))).toBe(
      "unsupported",
    );
    expect(await codeOf(a.reply(group.threadId))).toBe("unsupported");
    // Unsupported is not a refused send, and group threads are never listed.
    expect((await getAgentUsage(t.deps, a.agent.id)).usage.refused).toBe(0);
    expect((await listAgentEmails(t.deps, a.agent.id)).threads).toEqual([]);
    // b's group is invisible to a: 404, not 400.
    expect(await codeOf(getAgentEmailThread(t.deps, b.agent.id, group.threadId))).toBe("not_found");
  });
});

describe("a person's email", () => {
  it("to several starts a group: every participant's inbox, unread counts, and no event for the agent (it cannot open a group)", async () => {
    const { agent, person } = await inbox();
    const friend = await createUser(t.deps, { displayName: "Friend" });
    const sent = await sendPersonEmail(t.deps, person.id, {
      to: [agent.num, friend.num, friend.id],
      subject: "Dinner plans",
      content: "Who is in?",
    });
    const {
      threads: [friendsView],
    } = await listPersonEmailThreads(t.deps, friend.id);
    expect(friendsView).toMatchObject({
      id: sent.threadId,
      isGroup: true,
      unreadCount: 1,
      participants: expect.arrayContaining([
        expect.objectContaining({ id: person.id }),
        expect.objectContaining({ id: agent.id }),
      ]),
    });
    expect(friendsView?.participants).toHaveLength(2);
    const answer = await sendPersonEmail(t.deps, friend.id, {
      threadId: sent.threadId,
      content: "Me!",
    });
    expect((await listPersonEmailThreads(t.deps, person.id)).threads[0]?.unreadCount).toBe(1);
    expect((await listPersonEmailThreads(t.deps, friend.id)).threads[0]?.unreadCount).toBe(1);
    expect(answer.message.content).toBe("Me!");
    // The agent is a member, but the Agent API neither lists nor opens group threads: it hears
    // of neither email (an event would name a thread it gets `400 unsupported` for).
    expect(await emailEvents(agent.id)).toEqual([]);
    expect(await codeOf(getAgentEmailThread(t.deps, agent.id, sent.threadId))).toBe("unsupported");

    // Someone who blocked the agent can still write to the group.
    await blockAgent(t.deps, person.id, agent.id);
    await sendPersonEmail(t.deps, person.id, { threadId: sent.threadId, content: "private" });
    expect(await emailEvents(agent.id)).toEqual([]);
    // A 1:1 thread with the same agent still reaches it.
    await unblockAgent(t.deps, person.id, agent.id);
    const direct = await sendPersonEmail(t.deps, person.id, {
      to: [agent.num],
      subject: "Just us",
      content: "Hi",
    });
    expect((await emailEvents(agent.id)).map((e) => e.payload.threadId)).toEqual([direct.threadId]);
  });

  it("follows the chat's rules toward agents, and names real recipients", async () => {
    const { agent, person, write } = await inbox();
    const stranger = await createAgent(t.deps, {
      ownerId: (await createUser(t.deps, {})).id,
      displayName: "Stranger",
    });
    const email = (to: string[], extra: Record<string, unknown> = {}) =>
      codeOf(sendPersonEmail(t.deps, person.id, { to, subject: "S", content: "C", ...extra }));
    expect(await email([stranger.num])).toBe("not_a_contact");
    expect(await email([agent.num, stranger.num])).toBe("not_a_contact");
    expect(await email([person.num])).toBe("validation_error");
    expect(await email(["999-999-997"])).toBe("not_found");
    expect(await email([])).toBe("validation_error");
    expect(await email([agent.num], { subject: "x".repeat(201) })).toBe("validation_error");
    expect(await email([agent.num], { content: "x".repeat(10_001) })).toBe("validation_error");
    expect(await email([agent.num], { subject: "two\nlines" })).toBe("validation_error");
    const { threadId } = await write({});
    expect(await email([stranger.num], { threadId, subject: undefined })).toBe("validation_error");
    expect(
      await codeOf(
        sendPersonEmail(t.deps, agent.id, { to: [person.num], subject: "S", content: "C" }),
      ),
    ).toBe("forbidden");
    const outsider = await createUser(t.deps, {});
    expect(
      await codeOf(sendPersonEmail(t.deps, outsider.id, { threadId, content: "let me in" })),
    ).toBe("not_found");
    expect(await codeOf(getPersonEmailThread(t.deps, outsider.id, threadId))).toBe("not_found");
    expect(await codeOf(markEmailThreadReadByPerson(t.deps, outsider.id, threadId))).toBe(
      "not_found",
    );
    await blockAgent(t.deps, person.id, agent.id);
    expect(await codeOf(write({ threadId }))).toBe("blocked");
    await unblockAgent(t.deps, person.id, agent.id);
    await removeContact(t.deps, person.id, agent.id);
    expect(await codeOf(write({ threadId }))).toBe("not_a_contact");
    await setUserSuspended(t.deps, person.id, true);
    expect(await codeOf(write({}))).toBe("account_suspended");
  });

  it("between two people: no agent, no event; newest activity first", async () => {
    const a = await createUser(t.deps, {});
    const b = await createUser(t.deps, {});
    const first = await sendPersonEmail(t.deps, a.id, {
      to: [b.num],
      subject: "One",
      content: "1",
    });
    t.clock.advance(1000);
    const second = await sendPersonEmail(t.deps, b.id, {
      to: [a.num],
      subject: "Two",
      content: "2",
    });
    expect((await listPersonEmailThreads(t.deps, a.id)).threads.map((x) => x.id)).toEqual([
      second.threadId,
      first.threadId,
    ]);
    t.clock.advance(1000);
    await sendPersonEmail(t.deps, b.id, { threadId: first.threadId, content: "re: 1" });
    expect(
      (await listPersonEmailThreads(t.deps, a.id)).threads.map((x) => [x.id, x.unreadCount]),
    ).toEqual([
      [first.threadId, 1],
      [second.threadId, 1],
    ]);
    expect((await getPersonEmailThread(t.deps, a.id, first.threadId)).messages).toMatchObject([
      { content: "1", senderId: a.id },
      { content: "re: 1", senderId: b.id },
    ]);
  });
});
