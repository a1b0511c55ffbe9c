import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideAction } from "../actions/decide-action";
import { proposeAction } from "../actions/propose-action";
import { addContact } from "../contacts/contacts";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { codeOf, createTestDeps } from "../testing";
import { listPersonChatRows } from "./list-person-chat-rows";
import { sendAgentMessage } from "./send-agent-message";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** A person with `count` chats, the last one added the newest; each agent can write to them. */
async function personWithChats(count: number) {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, {});
  const chats: { agentId: string; conversationId: string }[] = [];
  for (let i = 0; i < count; i++) {
    t.clock.advance(1000);
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: `Agent ${i}`,
      requestedScopes: ["messages:write"],
    });
    const { conversationId } = await addContact(t.deps, person.id, agent.id, ["messages:write"]);
    chats.push({ agentId: agent.id, conversationId });
  }
  const write = (chat: { agentId: string; conversationId: string }, content: string) => {
    t.clock.advance(1000);
    return sendAgentMessage(
      t.deps,
      { agentId: chat.agentId },
      { conversationId: chat.conversationId, type: "text", content },
    );
  };
  return { person, chats, write };
}

/** Every page from the start, `limit` at a time; `between` runs after each page but the last. */
async function allPages(userId: string, limit: number, between?: () => Promise<void>) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const page = await listPersonChatRows(t.deps, userId, { cursor, limit });
    pages.push(page.chats.map((chat) => chat.id));
    cursor = page.nextCursor;
    if (cursor) await between?.();
  } while (cursor);
  return pages;
}

describe("listPersonChatRows", () => {
  it("pages the whole list in its order, newest activity first, each chat once", async () => {
    const { person, chats, write } = await personWithChats(7);
    await write(chats[2] as (typeof chats)[number], "moves chat 2 to the top");
    // Chat 2 wrote last; the others by when they were added, newest first.
    const everything = [2, 6, 5, 4, 3, 1, 0].map((i) => chats[i]?.conversationId);

    const pages = await allPages(person.id, 3);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(everything);
  });

  it("gives a row what it shows, not the chat's settings", async () => {
    const { person, chats, write } = await personWithChats(1);
    await write(chats[0] as (typeof chats)[number], "hello");
    const { chats: rows, nextCursor } = await listPersonChatRows(t.deps, person.id);
    expect(nextCursor).toBeNull();
    expect(rows).toEqual([
      {
        id: chats[0]?.conversationId,
        agent: expect.objectContaining({ displayName: "Agent 0", userType: "agent" }),
        isContact: true,
        blocked: false,
        lastMessage: expect.objectContaining({ content: "hello" }),
        lastMessageAt: expect.any(String),
        unreadCount: 1,
        agentTypingUntil: null,
        pendingCards: 0,
      },
    ]);
  });

  it("neither repeats nor skips a chat when one moves to the top between pages", async () => {
    const { person, chats, write } = await personWithChats(6);
    const oldest = chats[0] as (typeof chats)[number];
    let moved = false;
    const pages = await allPages(person.id, 2, async () => {
      // The oldest chat, on a page not read yet, gets a message while the person scrolls.
      if (!moved) await write(oldest, "new");
      moved = true;
    });
    const shown = pages.flat();
    expect(new Set(shown).size).toBe(shown.length);
    // Every chat that stayed put is shown, in order; the moved one is at the top when re-read.
    const stayed = chats
      .map((chat) => chat.conversationId)
      .slice(1)
      .reverse();
    expect(shown).toEqual(stayed);
    const [first] = await allPages(person.id, 2);
    expect(first?.[0]).toBe(oldest.conversationId);
  });

  it("keeps chats a microsecond apart in order across a page boundary", async () => {
    const { person, chats } = await personWithChats(3);
    const at = (micros: string, chat: (typeof chats)[number]) =>
      t.deps.db
        .update(schema.conversations)
        .set({ lastMessageAt: sql`timestamptz '2026-02-01 10:00:00.123${sql.raw(micros)}+00'` })
        .where(eq(schema.conversations.id, chat.conversationId));
    await at("456", chats[0] as (typeof chats)[number]);
    await at("457", chats[1] as (typeof chats)[number]);
    await at("458", chats[2] as (typeof chats)[number]);
    const pages = await allPages(person.id, 1);
    expect(pages.flat()).toEqual(chats.map((chat) => chat.conversationId).reverse());
  });

  it("counts the cards that wait for the person's decision, until decided or expired", async () => {
    const { person, chats } = await personWithChats(2);
    const [busy, quiet] = chats as [(typeof chats)[number], (typeof chats)[number]];
    const propose = (expiresInMs?: number) =>
      proposeAction(t.deps, { agentId: busy.agentId }, {
        conversationId: busy.conversationId,
        title: "Decide",
        ...(expiresInMs && {
          expiresAt: new Date(t.clock.now().getTime() + expiresInMs).toISOString(),
        }),
      } as never);
    const counts = async () =>
      Object.fromEntries(
        (await listPersonChatRows(t.deps, person.id)).chats.map((c) => [c.id, c.pendingCards]),
      );
    const { action } = await propose();
    await propose(120_000);
    expect(await counts()).toEqual({ [busy.conversationId]: 2, [quiet.conversationId]: 0 });
    await decideAction(t.deps, { userRef: person.id, actionId: action.id, approve: false });
    expect((await counts())[busy.conversationId]).toBe(1);
    // Past its expiry a card no longer waits, even before the timer marks it expired.
    t.clock.advance(121_000);
    expect((await counts())[busy.conversationId]).toBe(0);
  });

  it("finds chats by the agent's name or number, any case, wildcards taken literally", async () => {
    const { person, chats } = await personWithChats(3);
    const found = async (search: string) =>
      (await listPersonChatRows(t.deps, person.id, { search })).chats.map((c) => c.id);
    expect(await found("agent 1")).toEqual([chats[1]?.conversationId]);
    expect(await found("  AGENT  ")).toHaveLength(3);
    expect(await found("%")).toEqual([]);
    expect(await found("Agent_")).toEqual([]);
    const [row] = (await listPersonChatRows(t.deps, person.id, { search: "Agent 2" })).chats;
    expect(await found(row?.agent.num ?? "x")).toEqual([chats[2]?.conversationId]);
    // Blank searches list everything.
    expect(await found("   ")).toHaveLength(3);
    expect(await codeOf(listPersonChatRows(t.deps, person.id, { search: "x".repeat(101) }))).toBe(
      "validation_error",
    );
  });

  it("refuses a cursor it did not give and a limit out of 1-100", async () => {
    const { person } = await personWithChats(1);
    expect(await codeOf(listPersonChatRows(t.deps, person.id, { cursor: "yesterday" }))).toBe(
      "validation_error",
    );
    expect(await codeOf(listPersonChatRows(t.deps, person.id, { limit: 0 }))).toBe(
      "validation_error",
    );
    expect(await codeOf(listPersonChatRows(t.deps, person.id, { limit: 101 }))).toBe(
      "validation_error",
    );
  });
});
