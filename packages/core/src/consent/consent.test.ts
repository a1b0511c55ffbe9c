import type { AgentScope } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addContact,
  addUserContact,
  getConsentCard,
  removeContact,
  setGrant,
} from "../contacts/contacts";
import { wakeAfterCommit } from "../events/notifier";
import { readEvents } from "../events/read-events";
import { createAgent, updateAgentMe } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { listAgentConversations } from "../messaging/list-agent-conversations";
import { listAgentMessages } from "../messaging/list-agent-messages";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { codeOf, coreFailure, createTestDeps } from "../testing";
import { checkAgentAccess } from "./access";
import { blockAgent, setInitiation, unblockAgent } from "./agent-settings";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const ALL: AgentScope[] = ["messages:read", "messages:write", "tasks:read"];

async function setup(
  privacy: "everyone" | "nobody" | "contacts_of_contacts" = "everyone",
  requestedScopes: AgentScope[] = ALL,
) {
  const owner = await createUser(t.deps, { displayName: "Owner" });
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Agent",
    requestedScopes,
    requestPrivacy: privacy,
  });
  return { owner, person, agent };
}

const send = (agentId: string, target: { to?: string; conversationId?: string }) =>
  sendAgentMessage(t.deps, { agentId }, { ...target, type: "text", content: "hi" });

const history = (agentId: string, conversationId: string) =>
  listAgentMessages(t.deps, agentId, conversationId, { limit: 50 });

describe("adding an agent through the consent card", () => {
  it("grants only requested scopes, in consent-card order, and tells the agent contact.added", async () => {
    const { person, agent } = await setup();
    const refused = await coreFailure(addContact(t.deps, person.id, agent.id, ["calls:read"]));
    expect(refused?.code).toBe("validation_error");
    expect(refused?.details.issues?.[0]?.path).toBe("grant");
    expect(await codeOf(addContact(t.deps, person.id, agent.id, ["bogus:scope"]))).toBe(
      "validation_error",
    );

    const added = await addContact(t.deps, person.num, agent.num, [
      "tasks:read",
      "messages:write",
      "messages:write",
    ]);
    expect(added.grantedScopes).toEqual(["messages:write", "tasks:read"]);
    const events = (await readEvents(t.deps, agent.id, 0, 10)).events;
    expect(events.map((e) => [e.type, e.agentId])).toEqual([["contact.added", agent.id]]);
    expect(events[0]?.payload).toEqual({
      user: {
        id: person.id,
        num: person.num,
        displayName: "Pat",
        avatarUrl: null,
        userType: "person",
      },
      scopes: ["messages:write", "tasks:read"],
    });
  });

  it("keeps exactly one direct conversation per pair across re-adds, and re-announces a re-add", async () => {
    const { person, agent } = await setup();
    const first = await addContact(t.deps, person.id, agent.id, []);
    const again = await addContact(t.deps, person.id, agent.id, ["messages:read"]);
    expect(again.conversationId).toBe(first.conversationId);
    await removeContact(t.deps, person.id, agent.id);
    const readded = await addContact(t.deps, person.id, agent.id, ["messages:write"]);
    expect(readded.conversationId).toBe(first.conversationId);

    const key = [person.id, agent.id].sort().join(":");
    const rows = await t.deps.db
      .select()
      .from(schema.conversations)
      .where(eq(schema.conversations.memberKey, key));
    expect(rows.map((r) => [r.id, r.kind])).toEqual([[first.conversationId, "direct"]]);
    // The removal took the first add's contact.added with it; the re-add announces itself anew.
    const events = (await readEvents(t.deps, agent.id, 0, 10)).events;
    expect(events.map((e) => e.type === "contact.added" && e.payload.scopes)).toEqual([
      ["messages:write"],
    ]);
  });

  it("adds at once from two places without a second conversation or event", async () => {
    const { person, agent } = await setup();
    const results = await Promise.all(
      [1, 2, 3].map(() => addContact(t.deps, person.id, agent.id, ["messages:read"])),
    );
    expect(new Set(results.map((r) => r.conversationId)).size).toBe(1);
    expect((await readEvents(t.deps, agent.id, 0, 10)).events).toHaveLength(1);
  });

  it("respects request privacy: everyone, nobody (owner only), contacts of contacts", async () => {
    const nobody = await setup("nobody");
    const closed = await coreFailure(addContact(t.deps, nobody.person.id, nobody.agent.id, []));
    expect([closed?.code, closed?.message]).toEqual([
      "forbidden",
      expect.stringContaining("only its owner"),
    ]);
    expect(await codeOf(addContact(t.deps, nobody.owner.id, nobody.agent.id, []))).toBe("ok");

    const { owner, person, agent } = await setup("contacts_of_contacts");
    const friend = await createUser(t.deps, { displayName: "Friend" });
    expect((await coreFailure(addContact(t.deps, person.id, agent.id, [])))?.message).toContain(
      "contacts of its contacts",
    );
    // A contact who has not added the agent does not open the way.
    await addUserContact(t.deps, person.id, friend.id);
    expect(await codeOf(addContact(t.deps, person.id, agent.id, []))).toBe("forbidden");
    // Being someone else's contact (the other direction) does not either.
    await addUserContact(t.deps, owner.id, person.id);
    await addContact(t.deps, owner.id, agent.id, []);
    expect(await codeOf(addContact(t.deps, person.id, agent.id, []))).toBe("forbidden");
    expect(await getConsentCard(t.deps, person.num, agent.num)).toMatchObject({
      agent: { id: agent.id, num: agent.num, userType: "agent", bio: null },
      owner: { displayName: "Owner" },
      requestedScopes: ALL,
      requestPrivacy: "contacts_of_contacts",
      mayAdd: false,
      refusal: expect.stringContaining("contacts of its contacts"),
      isContact: false,
      conversationId: null,
    });
    // A contact who did add it (here via the owner) does.
    await addUserContact(t.deps, friend.id, owner.id);
    await addContact(t.deps, friend.id, agent.id, []);
    expect(await getConsentCard(t.deps, person.id, agent.id)).toMatchObject({
      mayAdd: true,
      refusal: null,
    });
    const added = await addContact(t.deps, person.id, agent.id, ["messages:read"]);
    expect(await getConsentCard(t.deps, person.id, agent.id)).toMatchObject({
      isContact: true,
      grantedScopes: ["messages:read"],
      conversationId: added.conversationId,
    });
  });

  it("refuses agents adding agents and suspended people", async () => {
    const { person, agent } = await setup();
    const other = await setup();
    expect(await codeOf(addContact(t.deps, other.agent.id, agent.id, []))).toBe("forbidden");
    await setUserSuspended(t.deps, person.id, true);
    expect(await codeOf(addContact(t.deps, person.id, agent.id, []))).toBe("account_suspended");
    expect(await codeOf(addContact(t.deps, "999-000-111", agent.id, []))).toBe("not_found");
  });
});

describe("grants and settings", () => {
  it("keeps existing grants when the agent later replaces its requested scopes", async () => {
    const { person, agent } = await setup();
    const { conversationId } = await addContact(t.deps, person.id, agent.id, [
      "messages:write",
      "tasks:read",
    ]);
    await updateAgentMe(t.deps, agent.id, { requestedScopes: ["messages:write"] });
    const access = await checkAgentAccess(
      t.deps,
      agent.id,
      { conversationId },
      { scope: "tasks:read" },
    );
    expect(access.grantedScopes).toEqual(["messages:write", "tasks:read"]);
    // A new grant may hold only what is requested now.
    expect(await codeOf(setGrant(t.deps, person.id, agent.id, ["tasks:read"]))).toBe(
      "validation_error",
    );
    expect(await setGrant(t.deps, person.id, agent.id, [])).toEqual({ grantedScopes: [] });
    expect(await codeOf(send(agent.id, { conversationId }))).toBe("scope_not_granted");
  });

  it("removing the contact removes access; the conversation stays listed with nothing granted", async () => {
    const { person, agent } = await setup();
    const { conversationId } = await addContact(t.deps, person.id, agent.id, ALL);
    await send(agent.id, { conversationId });
    await removeContact(t.deps, person.id, agent.id);
    expect(await codeOf(removeContact(t.deps, person.id, agent.id))).toBe("not_found");
    expect(await codeOf(setGrant(t.deps, person.id, agent.id, ALL))).toBe("not_found");
    expect(await codeOf(history(agent.id, conversationId))).toBe("not_a_contact");
    const {
      conversations: [listed],
    } = await listAgentConversations(t.deps, agent.id);
    expect(listed).toMatchObject({ id: conversationId, grantedScopes: [], initiation: "any" });
    const [row] = await t.deps.db
      .select()
      .from(schema.agentContacts)
      .where(eq(schema.agentContacts.conversationId, conversationId));
    expect(row).toMatchObject({ addedAt: null, grantedScopes: [] });
  });

  it("a block set before adding, and one outliving a removal, still refuses", async () => {
    const { person, agent } = await setup();
    await blockAgent(t.deps, person.id, agent.id);
    const { conversationId } = await addContact(t.deps, person.id, agent.id, ALL);
    expect(await codeOf(send(agent.id, { conversationId }))).toBe("blocked");
    await removeContact(t.deps, person.id, agent.id);
    await addContact(t.deps, person.id, agent.id, ALL);
    expect(await codeOf(history(agent.id, conversationId))).toBe("blocked");
    await unblockAgent(t.deps, person.id, agent.id);
    expect(await codeOf(history(agent.id, conversationId))).toBe("ok");
    expect(await codeOf(setInitiation(t.deps, person.id, agent.id, "sometimes" as never))).toBe(
      "validation_error",
    );
  });
});

describe("the access check", () => {
  it("refuses in order: suspended, blocked, not a contact, scope, reply window", async () => {
    const { person, agent } = await setup();
    const conversation = await addContact(t.deps, person.id, agent.id, []);
    await removeContact(t.deps, person.id, agent.id);
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    await blockAgent(t.deps, person.id, agent.id);
    await setUserSuspended(t.deps, person.id, true);
    const to = { to: person.num };

    expect(await codeOf(send(agent.id, to))).toBe("recipient_suspended");
    await setUserSuspended(t.deps, person.id, false);
    expect(await codeOf(send(agent.id, to))).toBe("blocked");
    await unblockAgent(t.deps, person.id, agent.id);
    expect(await codeOf(send(agent.id, to))).toBe("not_a_contact");
    await addContact(t.deps, person.id, agent.id, ["messages:read"]);
    const scope = await coreFailure(send(agent.id, to));
    expect([scope?.code, scope?.details.scope]).toEqual(["scope_not_granted", "messages:write"]);
    await setGrant(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
    expect(await codeOf(send(agent.id, to))).toBe("reply_window_closed");
    await setInitiation(t.deps, person.id, agent.id, "any");
    const sent = await send(agent.id, to);
    expect(sent.conversationId).toBe(conversation.conversationId);

    // Refused sends were counted (not the suspension), the one that went through as a message.
    expect((await getAgentUsage(t.deps, agent.id)).usage).toMatchObject({
      messages: 1,
      refused: 4,
    });
  });

  it("counts refusals of initiating calls only", async () => {
    const { person, agent } = await setup();
    const { conversationId } = await addContact(t.deps, person.id, agent.id, ["messages:write"]);
    expect(await codeOf(history(agent.id, conversationId))).toBe("scope_not_granted");
    expect(
      await codeOf(checkAgentAccess(t.deps, agent.id, { conversationId }, { scope: "tasks:read" })),
    ).toBe("scope_not_granted");
    expect((await getAgentUsage(t.deps, agent.id)).usage.refused).toBe(0);
  });

  it("opens a replies-only person's window for 24 h after their own last message (injected clock)", async () => {
    t.clock.set("2026-07-01T10:00:00Z");
    const { person, agent } = await setup();
    const { conversationId } = await addContact(t.deps, person.id, agent.id, [
      "messages:read",
      "messages:write",
    ]);
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    expect(await codeOf(send(agent.id, { to: person.num }))).toBe("reply_window_closed");
    // Reads are not initiating: history still works.
    expect(await codeOf(history(agent.id, conversationId))).toBe("ok");

    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "hello?" });
    t.clock.advance(24 * 3600_000 - 1000);
    expect(await codeOf(send(agent.id, { to: person.num }))).toBe("ok");
    t.clock.advance(1000);
    expect(await codeOf(send(agent.id, { conversationId }))).toBe("reply_window_closed");
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "again" });
    expect(await codeOf(send(agent.id, { conversationId }))).toBe("ok");
    t.clock.advance(48 * 3600_000);
    await setInitiation(t.deps, person.id, agent.id, "any");
    expect(await codeOf(send(agent.id, { conversationId }))).toBe("ok");
  });

  it("answers 404 for unknown targets and 403 forbidden for conversations the agent is not in", async () => {
    const a = await setup();
    const b = await setup();
    const { conversationId } = await addContact(t.deps, a.person.id, a.agent.id, ALL);
    const { message } = await send(a.agent.id, { conversationId });
    const need = { scope: "messages:read" as const };
    expect(await codeOf(checkAgentAccess(t.deps, b.agent.id, { conversationId }, need))).toBe(
      "forbidden",
    );
    expect(
      await codeOf(checkAgentAccess(t.deps, b.agent.id, { conversationId: "cnv_x" }, need)),
    ).toBe("not_found");
    expect(await codeOf(checkAgentAccess(t.deps, b.agent.id, { to: "999-999-998" }, need))).toBe(
      "not_found",
    );
    // A message outside the agent's conversations is as unknown as a missing one.
    expect(
      await codeOf(checkAgentAccess(t.deps, b.agent.id, { messageId: message.id }, need)),
    ).toBe("not_found");
    expect(
      (await checkAgentAccess(t.deps, a.agent.id, { messageId: message.id }, need)).message,
    ).toMatchObject({ id: message.id, senderId: a.agent.id, type: "text" });
    expect(await codeOf(checkAgentAccess(t.deps, a.agent.id, {}, need))).toBe("validation_error");

    // Only 1:1 conversations: a group the agent is in is refused too.
    const now = t.clock.now();
    await t.deps.db
      .insert(schema.conversations)
      .values({ id: "cnv_group1", kind: "group", createdAt: now });
    await t.deps.db.insert(schema.conversationMembers).values(
      [a.agent.id, a.person.id, b.person.id].map((userId) => ({
        conversationId: "cnv_group1",
        userId,
        joinedAt: now,
      })),
    );
    expect(
      await codeOf(checkAgentAccess(t.deps, a.agent.id, { conversationId: "cnv_group1" }, need)),
    ).toBe("forbidden");
  });

  it("reads everything fresh in one query per call", async () => {
    const { person, agent } = await setup();
    const { conversationId } = await addContact(t.deps, person.id, agent.id, ALL);
    const { message } = await send(agent.id, { conversationId });
    await wakeAfterCommit(t.deps.sql, []); // the send's wake-ups gone out (decision 0077)
    const options = t.deps.sql.options as unknown as { debug?: unknown };
    let queries = 0;
    options.debug = () => queries++;
    try {
      for (const target of [{ to: person.num }, { conversationId }, { messageId: message.id }]) {
        queries = 0;
        await checkAgentAccess(t.deps, agent.id, target, { scope: "messages:write" });
        expect(queries, JSON.stringify(target)).toBe(1);
      }
      // No caching: a change made between two calls shows on the next one.
      await setGrant(t.deps, person.id, agent.id, ["messages:read"]);
      expect(await codeOf(send(agent.id, { conversationId }))).toBe("scope_not_granted");
    } finally {
      options.debug = undefined;
    }
  });
});
