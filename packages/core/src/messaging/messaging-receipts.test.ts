import { type AgentScope, PersonChatPage } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockAgent, setInitiation } from "../consent/agent-settings";
import { addContact, removeContact, setGrant } from "../contacts/contacts";
import { readEvents } from "../events/read-events";
import { createUser } from "../identity/users";
import { objectIdFromPath, postgresObjectStore } from "../objects/object-store";
import { dataUrl, wavBytes, webmBytes } from "../objects/test-media";
import { codeOf, coreFailure, createTestDeps, testChat } from "../testing";
import { addReaction } from "./add-reaction";
import { getMessageAudio } from "./get-message-audio";
import { listAgentMessages } from "./list-agent-messages";
import { listPersonChatRows } from "./list-person-chat-rows";
import { listPersonMessages } from "./list-person-messages";
import { markConversationRead } from "./mark-conversation-read";
import { markReadByPerson } from "./mark-read-by-person";
import { reactAsPerson, unreactAsPerson } from "./react-as-person";
import { removeReaction } from "./remove-reaction";
import { sendPersonMessage } from "./send-person-message";
import { setAgentTyping } from "./set-agent-typing";
import { setPersonTyping } from "./set-person-typing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const chat = (grant?: AgentScope[]) => testChat(t.deps, grant);

const _eventsOf = async (agentId: string) => (await readEvents(t.deps, agentId, 0, 100)).events;

describe("history", () => {
  it("pages back with before/limit/hasMore, oldest first within a page", async () => {
    const { send, agent, person, conversationId } = await chat();
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      if (n % 2 === 0)
        ids.push(
          (await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: `m${n}` }))
            .message.id,
        );
      else ids.push((await send({ type: "text", content: `m${n}` })).message.id);
    }
    const page = (q: { limit: number; before?: string }) =>
      listAgentMessages(t.deps, agent.id, conversationId, q);
    const newest = await page({ limit: 2 });
    expect([newest.messages.map((m) => m.content), newest.hasMore]).toEqual([["m4", "m5"], true]);
    expect(newest.messages[0]).toMatchObject({ senderId: person.id, senderNum: person.num });
    const middle = await page({ limit: 2, before: ids[3] });
    expect([middle.messages.map((m) => m.content), middle.hasMore]).toEqual([["m2", "m3"], true]);
    const oldest = await page({ limit: 2, before: ids[1] });
    expect([oldest.messages.map((m) => m.content), oldest.hasMore]).toEqual([["m1"], false]);
    expect((await page({ limit: 100 })).hasMore).toBe(false);
    expect(await codeOf(page({ limit: 2, before: "msg_nope" }))).toBe("not_found");
  });
});

describe("receipts, typing and reactions", () => {
  it("read marks move forward only and show in the person's chat", async () => {
    const { send, agent, person, conversationId } = await chat();
    const { message: one } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "one",
    });
    const { message: two } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "two",
    });
    const { message: reply } = await send({ type: "text", content: "reply" });

    let view = await listPersonMessages(t.deps, person.id, conversationId);
    expect(view.messages.map((m) => m.readByOther)).toEqual([false, false, false]);
    expect(view.conversation.unreadCount).toBe(1);

    await markConversationRead(t.deps, agent.id, conversationId, two.id);
    await markConversationRead(t.deps, agent.id, conversationId, one.id); // never moves back
    await markReadByPerson(t.deps, person.id, agent.num);
    view = await listPersonMessages(t.deps, person.id, conversationId);
    expect(PersonChatPage.safeParse(view).error?.issues ?? []).toEqual([]);
    expect(view.messages.map((m) => m.readByOther)).toEqual([true, true, true]);
    expect(view.readUpTo).toEqual({ person: reply.id, agent: two.id });
    expect(view.conversation.unreadCount).toBe(0);

    expect(await codeOf(markConversationRead(t.deps, agent.id, conversationId, "msg_nope"))).toBe(
      "not_found",
    );
    const other = await chat();
    const { message: elsewhere } = await other.send({ type: "text", content: "x" });
    expect(await codeOf(markConversationRead(t.deps, agent.id, conversationId, elsewhere.id))).toBe(
      "not_found",
    );
    expect(await codeOf(markConversationRead(t.deps, other.agent.id, conversationId, one.id))).toBe(
      "forbidden",
    );
  });

  it("typing shows for about 8 s unless refreshed, clears on false and on sending", async () => {
    t.clock.set("2026-04-01T09:00:00Z");
    const { send, agent, person, conversationId } = await chat();
    const typingUntil = async () =>
      (await listPersonChatRows(t.deps, person.id)).chats[0]?.agentTypingUntil;
    await setAgentTyping(t.deps, agent.id, conversationId, true);
    expect(await typingUntil()).toBe("2026-04-01T09:00:08.000Z");
    t.clock.advance(5000);
    await setAgentTyping(t.deps, agent.id, conversationId, true);
    t.clock.advance(5000);
    expect(await typingUntil()).toBe("2026-04-01T09:00:13.000Z");
    t.clock.advance(3001);
    expect(await typingUntil()).toBeNull();
    await setAgentTyping(t.deps, agent.id, conversationId, true);
    await setAgentTyping(t.deps, agent.id, conversationId, false);
    expect(await typingUntil()).toBeNull();
    await setAgentTyping(t.deps, agent.id, conversationId, true);
    await send({ type: "text", content: "done typing" });
    expect(await typingUntil()).toBeNull();
    await setPersonTyping(t.deps, person.id, conversationId, true);
    const [row] = await t.deps.db
      .select()
      .from(schema.typingIndicators)
      .where(eq(schema.typingIndicators.userId, person.id));
    expect(row?.until.toISOString()).toBe("2026-04-01T09:00:21.001Z");
  });

  it("reactions from both sides, once per emoji, removable", async () => {
    const { send, agent, person, conversationId } = await chat();
    const { message } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "hi",
    });
    const reaction = await addReaction(t.deps, agent.id, message.id, "👍🏽");
    expect(reaction).toEqual({
      messageId: message.id,
      emoji: "👍🏽",
      createdAt: t.clock.now().toISOString(),
    });
    t.clock.advance(1000);
    expect(await addReaction(t.deps, agent.id, message.id, "👍🏽")).toEqual(reaction);
    await reactAsPerson(t.deps, person.id, message.id, "❤️");
    const { message: mine } = await send({ type: "text", content: "yo" });
    await reactAsPerson(t.deps, person.id, mine.id, "😂");
    let view = await listPersonMessages(t.deps, person.id, agent.id);
    expect(view.messages.map((m) => m.reactions.map((r) => [r.userId, r.emoji]))).toEqual([
      [
        [agent.id, "👍🏽"],
        [person.id, "❤️"],
      ],
      [[person.id, "😂"]],
    ]);
    await removeReaction(t.deps, agent.id, message.id, "👍🏽");
    await removeReaction(t.deps, agent.id, message.id, "👍🏽");
    await unreactAsPerson(t.deps, person.id, mine.id, "😂");
    view = await listPersonMessages(t.deps, person.id, conversationId);
    expect(view.messages.map((m) => m.reactions.length)).toEqual([1, 0]);
    expect(await codeOf(addReaction(t.deps, agent.id, "msg_nope", "👍"))).toBe("not_found");
    expect(await codeOf(reactAsPerson(t.deps, person.id, message.id, "way too long!"))).toBe(
      "validation_error",
    );
    const stranger = await createUser(t.deps, {});
    expect(await codeOf(reactAsPerson(t.deps, stranger.id, message.id, "👍"))).toBe("not_found");
  });

  it("reads, typing, receipts and reactions need messages:write and are not bound by reply_only", async () => {
    const { agent, person, conversationId } = await chat(["messages:read"]);
    const { message } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "hi",
    });
    // Called one at a time: a refusal made before it is awaited would go unhandled.
    for (const call of [
      () => markConversationRead(t.deps, agent.id, conversationId, message.id),
      () => setAgentTyping(t.deps, agent.id, conversationId, true),
      () => addReaction(t.deps, agent.id, message.id, "👍"),
      () => removeReaction(t.deps, agent.id, message.id, "👍"),
    ]) {
      const refused = await coreFailure(call());
      expect([refused?.code, refused?.details.scope]).toEqual([
        "scope_not_granted",
        "messages:write",
      ]);
    }
    await setGrant(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    t.clock.advance(3 * 24 * 3600_000);
    expect(await codeOf(markConversationRead(t.deps, agent.id, conversationId, message.id))).toBe(
      "ok",
    );
    expect(await codeOf(setAgentTyping(t.deps, agent.id, conversationId, true))).toBe("ok");
    expect(await codeOf(addReaction(t.deps, agent.id, message.id, "👍"))).toBe("ok");
    expect(await codeOf(listAgentMessages(t.deps, agent.id, conversationId, { limit: 5 }))).toBe(
      "ok",
    );
    await blockAgent(t.deps, person.id, agent.id);
    expect(await codeOf(setAgentTyping(t.deps, agent.id, conversationId, true))).toBe("blocked");
    expect(await codeOf(addReaction(t.deps, agent.id, message.id, "👍"))).toBe("blocked");
  });
});

describe("voice audio", () => {
  it("serves the agent's own notes without a grant and the person's with messages:read", async () => {
    const { send, agent, person } = await chat(["messages:write"]);
    const { message: own } = await send({
      type: "voice",
      content: "mine",
      audioData: dataUrl("audio/wav", wavBytes()),
      audioDuration: "0.1",
    });
    const { message: theirs } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "voice",
      audioData: dataUrl("audio/webm", webmBytes()),
    });
    expect(await getMessageAudio(t.deps, agent.id, own.id)).toMatchObject({
      mimeType: "audio/wav",
    });
    const denied = await coreFailure(getMessageAudio(t.deps, agent.id, theirs.id));
    expect([denied?.code, denied?.details.scope]).toEqual(["scope_not_granted", "messages:read"]);
    await setGrant(t.deps, person.id, agent.id, ["messages:read"]);
    const audio = await getMessageAudio(t.deps, agent.id, theirs.id);
    expect([audio.mimeType, audio.bytes.equals(webmBytes())]).toEqual(["audio/webm", true]);
    // Even removed, the agent still has its own notes (no grant needed), not the person's.
    await removeContact(t.deps, person.id, agent.id);
    expect(await codeOf(getMessageAudio(t.deps, agent.id, own.id))).toBe("ok");
    expect(await codeOf(getMessageAudio(t.deps, agent.id, theirs.id))).toBe("not_a_contact");

    const { message: text } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "x",
    }).catch(async () => {
      await addContact(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
      return sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "x" });
    });
    expect(await codeOf(getMessageAudio(t.deps, agent.id, text.id))).toBe("no_audio");
    expect(await codeOf(getMessageAudio(t.deps, agent.id, "msg_unknown"))).toBe(
      "message_not_found",
    );
    const other = await chat();
    expect(await codeOf(getMessageAudio(t.deps, other.agent.id, own.id))).toBe("message_not_found");
    await postgresObjectStore.delete(
      t.deps.db,
      objectIdFromPath(own.audio?.data ?? "") ?? "",
      t.clock.now(),
    );
    expect(await codeOf(getMessageAudio(t.deps, agent.id, own.id))).toBe("no_audio");
  });
});
