import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  AgentMessage,
  type AgentScope,
  type AgentSendMessageRequest,
  MessageReceivedPayload,
  MessageTranscriptPayload,
  PersonChatPage,
  PersonConversation,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { blockAgent, setInitiation } from "../consent/agent-settings";
import { addContact, removeContact, setGrant } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { notifyTopics, userTopic } from "../events/notifier";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { cleanupExpired } from "../maintenance/cleanup";
import { objectIdFromPath, postgresObjectStore } from "../objects/object-store";
import {
  dataUrl,
  gifBytes,
  jpegBytes,
  mp3Id3Bytes,
  oggBytes,
  pngBytes,
  wavBytes,
  webmBytes,
  webpBytes,
} from "../objects/test-media";
import { codeOf, coreFailure, createTestDeps } from "../testing";
import { addReaction } from "./add-reaction";
import { getMessageAudio } from "./get-message-audio";
import { getPersonMessageMedia } from "./get-person-message-media";
import { listAgentConversations } from "./list-agent-conversations";
import { listAgentMessages } from "./list-agent-messages";
import { listPersonChatRows } from "./list-person-chat-rows";
import { listPersonMessages } from "./list-person-messages";
import { markConversationRead } from "./mark-conversation-read";
import { markReadByPerson } from "./mark-read-by-person";
import { reactAsPerson, unreactAsPerson } from "./react-as-person";
import { removeReaction } from "./remove-reaction";
import { sendAgentMessage } from "./send-agent-message";
import { sendPersonMessage } from "./send-person-message";
import { setAgentTyping } from "./set-agent-typing";
import { setMessageTranscript } from "./set-message-transcript";
import { setPersonTyping } from "./set-person-typing";
import { appendReplyDelta, startStreamedReply } from "./streamed-replies";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function chat(grant: AgentScope[] = ["messages:read", "messages:write"]) {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Helper",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, grant);
  const send = (request: Omit<AgentSendMessageRequest, "to" | "conversationId">, deps = t.deps) =>
    sendAgentMessage(deps, { agentId: agent.id }, { conversationId, ...request });
  return { owner, person, agent, conversationId, send };
}

const eventsOf = async (agentId: string) => (await readEvents(t.deps, agentId, 0, 100)).events;

describe("an agent sends", () => {
  it("all eight types, each carrying only its own media group", async () => {
    const { send, agent, person, conversationId } = await chat();
    const requests: Omit<AgentSendMessageRequest, "to" | "conversationId">[] = [
      { type: "text", content: "hello" },
      {
        type: "voice",
        content: "listen",
        audioData: dataUrl("audio/ogg", oggBytes()),
        audioDuration: "1.5",
        transcript: "hi there",
      },
      {
        type: "image",
        content: "pic",
        imageData: dataUrl("image/png", pngBytes()),
        mediaWidth: 1,
        mediaHeight: 1,
      },
      { type: "sticker", content: "s", imageData: dataUrl("image/webp", webpBytes()) },
      {
        type: "video",
        content: "clip",
        videoData: dataUrl("video/webm", webmBytes()),
        thumbnailData: dataUrl("image/jpeg", jpegBytes()),
      },
      { type: "location", content: "here", latitude: "52.52", longitude: "-13.405" },
      {
        type: "contact",
        content: "meet Sam",
        sharedContactId: "usr_sam",
        sharedContactNum: "123-456-789",
        sharedContactName: "Sam",
      },
      {
        type: "document",
        content: "the lease",
        documentData: dataUrl("application/pdf", Buffer.from("%PDF-1.4 tiny")),
        documentName: "lease.pdf",
        documentSize: "13",
      },
    ];
    const sent = [];
    for (const request of requests) {
      const { message, conversationId: cid } = await send(request);
      expect(cid).toBe(conversationId);
      expect(AgentMessage.safeParse(message).error?.issues ?? []).toEqual([]);
      expect(message).toMatchObject({
        senderId: agent.id,
        senderNum: agent.num,
        type: request.type,
      });
      sent.push(message);
    }
    const [text, voice, image, sticker, video, location, contact, document] = sent;
    expect(Object.keys(text ?? {}).sort()).toEqual([
      "agentActionId",
      "content",
      "conversationId",
      "createdAt",
      "id",
      "replyToId",
      "senderId",
      "senderNum",
      "type",
    ]);
    expect(voice).toMatchObject({
      audio: { data: expect.stringMatching(/^\/objects\/obj_/), duration: "1.5" },
      transcript: "hi there",
    });
    expect(image?.image).toEqual({
      data: expect.stringMatching(/^\/objects\//),
      width: 1,
      height: 1,
    });
    expect(sticker?.image).toEqual({
      data: expect.stringMatching(/^\/objects\//),
      width: null,
      height: null,
    });
    expect(video?.video).toEqual({
      data: expect.stringMatching(/^\/objects\//),
      thumbnail: expect.stringMatching(/^\/objects\//),
      width: null,
      height: null,
    });
    expect(location?.location).toEqual({ latitude: "52.52", longitude: "-13.405" });
    expect(contact?.sharedContact).toEqual({
      id: "usr_sam",
      num: "123-456-789",
      name: "Sam",
      avatar: null,
      type: null,
    });
    expect(document?.document).toEqual({
      data: expect.stringMatching(/^\/objects\//),
      name: "lease.pdf",
      size: "13",
      mimeType: "application/pdf",
    });
    // What was stored is what history shows, and the person was not told through an event.
    const history = await listAgentMessages(t.deps, agent.id, conversationId, { limit: 50 });
    expect(history.messages).toEqual(sent);
    expect((await eventsOf(agent.id)).map((e) => e.type)).toEqual(["contact.added"]);
    expect((await getAgentUsage(t.deps, agent.id)).usage.messages).toBe(8);
    const [listed] = (await listPersonChatRows(t.deps, person.id)).chats;
    expect(listed?.lastMessage?.id).toBe(document?.id);
  });

  it("refuses bad media with invalid_audio or a validation_error naming the field", async () => {
    const { send } = await chat();
    for (const audioData of [
      dataUrl("audio/wav", Buffer.from("RIFF but not really")),
      dataUrl("audio/mpeg", pngBytes()),
      "https://cdn.example.com/a.mp3",
      "/objects/obj_aaaaaaaaaaaaaaaaaaaa",
    ])
      expect(
        await codeOf(send({ type: "voice", content: "v", audioData, audioDuration: "1" })),
        audioData,
      ).toBe("invalid_audio");
    const image = await coreFailure(
      send({ type: "image", content: "i", imageData: dataUrl("image/png", oggBytes()) }),
    );
    expect([image?.code, image?.details.issues?.[0]?.path]).toEqual([
      "validation_error",
      "imageData",
    ]);
    const reply = await coreFailure(
      send({ type: "text", content: "re", replyToId: "msg_elsewhere" }),
    );
    expect([reply?.code, reply?.details.issues?.[0]?.path]).toEqual([
      "validation_error",
      "replyToId",
    ]);
  });

  it("reuses stored objects only from the sender's own conversations, and of the right kind", async () => {
    const a = await chat();
    const b = await chat();
    const { message: note } = await a.send({
      type: "voice",
      content: "n",
      audioData: dataUrl("audio/mpeg", mp3Id3Bytes()),
      audioDuration: "1",
    });
    expect(await getObjectMime(note.audio?.data)).toBe("audio/mpeg");
    // The same agent forwards its own note; the person's own note can be sent back to them.
    expect(
      await codeOf(
        a.send({
          type: "voice",
          content: "again",
          audioData: note.audio?.data,
          audioDuration: "1",
        }),
      ),
    ).toBe("ok");
    const { message: theirs } = await sendPersonMessage(t.deps, a.person.id, a.agent.id, {
      type: "voice",
      audioData: dataUrl("audio/ogg", oggBytes()),
    });
    expect(
      await codeOf(
        a.send({
          type: "voice",
          content: "yours",
          audioData: theirs.audio?.data,
          audioDuration: "1",
        }),
      ),
    ).toBe("ok");
    // Another agent cannot use either.
    expect(
      await codeOf(
        b.send({ type: "voice", content: "x", audioData: note.audio?.data, audioDuration: "1" }),
      ),
    ).toBe("invalid_audio");
    expect(
      await codeOf(
        b.send({ type: "voice", content: "x", audioData: theirs.audio?.data, audioDuration: "1" }),
      ),
    ).toBe("invalid_audio");
    // An image object is not audio; an audio object is not an image.
    const { message: pic } = await a.send({
      type: "image",
      content: "p",
      imageData: dataUrl("image/gif", gifBytes()),
    });
    expect(
      await codeOf(
        a.send({ type: "voice", content: "x", audioData: pic.image?.data, audioDuration: "1" }),
      ),
    ).toBe("invalid_audio");
    expect(await codeOf(a.send({ type: "image", content: "x", imageData: note.audio?.data }))).toBe(
      "validation_error",
    );
    // Gone objects cannot be reused.
    await postgresObjectStore.delete(
      t.deps.db,
      objectIdFromPath(note.audio?.data ?? "") ?? "",
      t.clock.now(),
    );
    expect(
      await codeOf(
        a.send({ type: "voice", content: "x", audioData: note.audio?.data, audioDuration: "1" }),
      ),
    ).toBe("invalid_audio");
  });

  it("speaks tts through TTS_COMMAND: 502 on failure, the text as transcript", async () => {
    const { send, agent, conversationId } = await chat();

    const dir = mkdtempSync(path.join(tmpdir(), "tts-"));
    const speak = path.join(dir, "speak.mjs");
    const wav = wavBytes(1600);
    writeFileSync(
      speak,
      `let text = ""; process.stdin.on("data", (c) => (text += c)); process.stdin.on("end", () => {
        if (!process.argv.includes("--stdout") || text !== "Hello there") process.exit(3);
        process.stdout.write(Buffer.from(${JSON.stringify(wav.toString("base64"))}, "base64"));
      });`,
    );
    const withTts = (command: string): CoreDeps => ({
      ...t.deps,
      // No ffmpeg on this PATH: the engine's WAV is stored as it came.
      config: loadConfig({
        DATABASE_URL: t.config.DATABASE_URL,
        TTS_COMMAND: command,
        PATH: "/nonexistent",
      }),
    });
    const { message } = await send(
      { type: "voice", tts: { text: "Hello there", voice: "en-us" } },
      withTts(`node ${speak}`),
    );
    expect(message).toMatchObject({
      type: "voice",
      content: "Hello there",
      transcript: "Hello there",
      audio: { data: expect.stringMatching(/^\/objects\//), duration: "0.2" },
    });
    expect((await getMessageAudio(t.deps, agent.id, message.id)).bytes.equals(wav)).toBe(true);

    const before = (await listAgentMessages(t.deps, agent.id, conversationId, { limit: 100 }))
      .messages.length;
    for (const command of [
      `node ${path.join(dir, "missing.mjs")}`,
      "/nonexistent/espeak-ng",
      `node -e process.exit(0)`,
    ])
      expect(
        await codeOf(send({ type: "voice", tts: { text: "Hello there" } }, withTts(command))),
        command,
      ).toBe("tts_failed");
    const after = (await listAgentMessages(t.deps, agent.id, conversationId, { limit: 100 }))
      .messages.length;
    expect(after).toBe(before);
  });

  it("moves lastMessageAt; the agent's list is newest activity first and hides nobody", async () => {
    t.clock.set("2026-03-01T08:00:00Z");
    const first = await chat();
    const agentId = first.agent.id;
    const p2 = await createUser(t.deps, { displayName: "Two" });
    const p3 = await createUser(t.deps, { displayName: "Three" });
    t.clock.advance(60_000);
    const c2 = await addContact(t.deps, p2.id, agentId, ["messages:write"]);
    t.clock.advance(60_000);
    const c3 = await addContact(t.deps, p3.id, agentId, []);
    await blockAgent(t.deps, p3.id, agentId);
    expect((await listAgentConversations(t.deps, agentId)).conversations.map((c) => c.id)).toEqual([
      c3.conversationId,
      c2.conversationId,
      first.conversationId,
    ]);
    t.clock.advance(60_000);
    const { message } = await first.send({ type: "text", content: "news" });
    const { conversations: listed } = await listAgentConversations(t.deps, agentId);
    expect(listed.map((c) => c.id)).toEqual([
      first.conversationId,
      c3.conversationId,
      c2.conversationId,
    ]);
    expect(listed[0]).toMatchObject({
      lastMessageAt: message.createdAt,
      grantedScopes: ["messages:read", "messages:write"],
    });
    expect(listed[1]).toMatchObject({ lastMessageAt: null, grantedScopes: [] });
    await setInitiation(t.deps, p2.id, agentId, "reply_only");
    expect((await listAgentConversations(t.deps, agentId)).conversations[2]).toMatchObject({
      initiation: "reply_only",
    });
  });
});

async function getObjectMime(data: string | undefined) {
  const stored = await postgresObjectStore.head(t.deps.db, objectIdFromPath(data ?? "") ?? "");
  return stored?.mimeType;
}

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

describe("a person writes", () => {
  it("tells the agent message.received, with the content only under messages:read", async () => {
    const open = await chat(["messages:read", "messages:write"]);
    const closed = await chat(["messages:write"]);
    for (const side of [open, closed]) {
      const { message } = await sendPersonMessage(t.deps, side.person.num, side.agent.num, {
        type: "location",
        latitude: "1.5",
        longitude: "2.5",
      });
      expect(message).toMatchObject({
        content: "",
        location: { latitude: "1.5", longitude: "2.5" },
      });
      const [, received] = await eventsOf(side.agent.id);
      expect(received?.type).toBe("message.received");
      expect(MessageReceivedPayload.safeParse(received?.payload).error?.issues ?? []).toEqual([]);
      const from = {
        id: side.person.id,
        num: side.person.num,
        displayName: "Pat",
        avatarUrl: null,
        userType: "person",
      };
      expect(received?.payload).toEqual(
        side === open
          ? { conversationId: side.conversationId, from, message }
          : {
              conversationId: side.conversationId,
              from,
              message: null,
              accessDenied: {
                scope: "messages:read",
                message: expect.stringContaining("messages:read"),
              },
            },
      );
    }
  });

  it("voice notes carry audio in message.received, never the transcript; message.transcript follows, masked alike", async () => {
    const open = await chat(["messages:read", "messages:write"]);
    const closed = await chat(["messages:write"]);
    for (const side of [open, closed]) {
      const { message } = await sendPersonMessage(t.deps, side.person.id, side.agent.id, {
        type: "voice",
        content: "a note",
        audioData: dataUrl("audio/ogg", oggBytes()),
        audioDuration: "2",
      });
      await setMessageTranscript(t.deps, message.id, "  the words  ");
      const [, received, transcript] = await eventsOf(side.agent.id);
      expect([received?.type, transcript?.type]).toEqual([
        "message.received",
        "message.transcript",
      ]);
      expect((received?.seq ?? 0) < (transcript?.seq ?? 0)).toBe(true);
      expect(MessageTranscriptPayload.safeParse(transcript?.payload).error?.issues ?? []).toEqual(
        [],
      );
      if (side === open) {
        expect(received?.payload).toMatchObject({
          message: { audio: { data: message.audio?.data, duration: "2" } },
        });
        expect(received?.payload).not.toHaveProperty("message.transcript");
        expect(transcript?.payload).toMatchObject({
          conversationId: side.conversationId,
          messageId: message.id,
          transcript: "the words",
        });
        expect(transcript?.payload).not.toHaveProperty("accessDenied");
        // History now shows the transcript on the note.
        const [note] = (
          await listAgentMessages(t.deps, side.agent.id, side.conversationId, { limit: 1 })
        ).messages;
        expect(note?.transcript).toBe("the words");
      } else {
        expect(received?.payload).toMatchObject({
          message: null,
          accessDenied: { scope: "messages:read" },
        });
        expect(transcript?.payload).toMatchObject({
          messageId: message.id,
          transcript: null,
          accessDenied: { scope: "messages:read", message: expect.any(String) },
        });
      }
    }
    const { message: text } = await sendPersonMessage(t.deps, open.person.id, open.agent.id, {
      type: "text",
      content: "t",
    });
    expect(await codeOf(setMessageTranscript(t.deps, text.id, "x"))).toBe("validation_error");
    const { message: agentNote } = await open.send({
      type: "voice",
      content: "n",
      audioData: dataUrl("audio/ogg", oggBytes()),
      audioDuration: "1",
    });
    expect(await codeOf(setMessageTranscript(t.deps, agentNote.id, "x"))).toBe("validation_error");
    expect(await codeOf(setMessageTranscript(t.deps, "msg_nope", "x"))).toBe("not_found");
    expect(await codeOf(setMessageTranscript(t.deps, text.id, "   "))).toBe("validation_error");
  });

  it("needs the agent as an unblocked contact and an active account; validates like the API", async () => {
    const { agent, person } = await chat();
    const stranger = await createUser(t.deps, {});
    expect(
      await codeOf(
        sendPersonMessage(t.deps, stranger.id, agent.id, { type: "text", content: "hi" }),
      ),
    ).toBe("not_a_contact");
    expect(
      await codeOf(
        sendPersonMessage(t.deps, person.id, "800-000-000", { type: "text", content: "hi" }),
      ),
    ).toBe("not_found");
    const invalid = await coreFailure(
      sendPersonMessage(t.deps, person.id, agent.id, { type: "image" }),
    );
    expect([invalid?.code, invalid?.details.issues?.map((i) => i.path)]).toEqual([
      "validation_error",
      ["imageData"],
    ]);
    expect(await codeOf(sendPersonMessage(t.deps, person.id, agent.id, { type: "text" }))).toBe(
      "validation_error",
    );
    expect(
      await codeOf(
        sendPersonMessage(t.deps, person.id, agent.id, {
          type: "voice",
          audioData: "https://x.example/a.mp3",
        }),
      ),
    ).toBe("invalid_audio");
    await blockAgent(t.deps, person.id, agent.id);
    expect(
      await codeOf(sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "hi" })),
    ).toBe("blocked");
    await setUserSuspended(t.deps, person.id, true);
    expect(
      await codeOf(sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "hi" })),
    ).toBe("account_suspended");
  });

  it("wakes the person's open apps on every change toward them, naming the chat", async () => {
    const { send, agent, owner, person, conversationId } = await chat();
    const changes: (string | undefined)[] = [];
    const ownerChanges: (string | undefined)[] = [];
    const stops = [
      await t.deps.notifier.subscribe(`user:${person.id}`, (change) => changes.push(change)),
      await t.deps.notifier.subscribe(`user:${owner.id}`, (change) => ownerChanges.push(change)),
    ];
    let round = 0;
    /**
     * The changes named to the person by `action`: everything that arrives before a marker
     * notified after it (Postgres delivers notifications in commit order, so a late wake-up of
     * an earlier action cannot land in this one's list).
     */
    const named = async (action: () => Promise<unknown>) => {
      const marker = `chat:marker-${++round}` as const;
      const start = changes.length;
      await action();
      await notifyTopics(t.deps.db, [userTopic(person.id, marker)]);
      await expect.poll(() => changes.includes(marker)).toBe(true);
      return [...new Set(changes.slice(start, changes.indexOf(marker)))];
    };
    const inChat = [`chat:${conversationId}`];
    try {
      const { message } = await send({ type: "text", content: "hi" });
      expect(await named(() => send({ type: "text", content: "hi" }))).toEqual(inChat);
      expect(await named(() => setAgentTyping(t.deps, agent.id, conversationId, true))).toEqual(
        inChat,
      );
      expect(
        await named(() => markConversationRead(t.deps, agent.id, conversationId, message.id)),
      ).toEqual(inChat);
      expect(await named(() => addReaction(t.deps, agent.id, message.id, "👍"))).toEqual(inChat);
      expect(await named(() => removeReaction(t.deps, agent.id, message.id, "👍"))).toEqual(inChat);
      expect(await named(() => reactAsPerson(t.deps, person.id, message.id, "👍"))).toEqual(inChat);
      expect(await named(() => setPersonTyping(t.deps, person.id, conversationId))).toEqual(inChat);
      expect(
        await named(() =>
          sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "o" }),
        ),
      ).toEqual(inChat);
      // The person's own read mark changes only their unread counts.
      expect(await named(() => send({ type: "text", content: "unread" }))).toEqual(inChat);
      expect(await named(() => markReadByPerson(t.deps, person.id, conversationId))).toEqual([
        `read:${conversationId}`,
      ]);
      // The agent's owner hears of what it sent and received: its usage and charts changed.
      await expect.poll(() => ownerChanges).toContain(`activity:${agent.id}`);
      expect(new Set(ownerChanges)).toEqual(new Set([`activity:${agent.id}`]));
    } finally {
      for (const stop of stops) stop();
    }
  });
});

describe("the person's chat list and media", () => {
  it("shows a chat with settings, requested scopes and unread counts; stays after removal", async () => {
    const { send, agent, person, conversationId } = await chat(["messages:write"]);
    await send({ type: "text", content: "one" });
    await send({ type: "text", content: "two" });
    const opened = async () =>
      (await listPersonMessages(t.deps, person.num, conversationId)).conversation;
    let shown = await opened();
    expect(PersonConversation.safeParse(shown).error?.issues ?? []).toEqual([]);
    expect(shown).toMatchObject({
      id: conversationId,
      agent: { id: agent.id, num: agent.num, userType: "agent" },
      isContact: true,
      requestedScopes: ["messages:read", "messages:write"],
      grantedScopes: ["messages:write"],
      initiation: "any",
      blocked: false,
      lastMessage: { content: "two" },
      unreadCount: 2,
      agentTypingUntil: null,
    });
    await removeContact(t.deps, person.id, agent.id);
    await blockAgent(t.deps, person.id, agent.id);
    shown = await opened();
    expect(shown).toMatchObject({ isContact: false, grantedScopes: [], blocked: true });
    const [listed] = (await listPersonChatRows(t.deps, person.id)).chats;
    expect(listed).toMatchObject({ id: conversationId, isContact: false, blocked: true });
    expect((await listPersonMessages(t.deps, person.id, conversationId)).messages).toHaveLength(2);
    expect(await codeOf(listPersonMessages(t.deps, person.id, "cnv_unknown"))).toBe("not_found");
    expect(await codeOf(listPersonMessages(t.deps, person.id, conversationId, { limit: 0 }))).toBe(
      "validation_error",
    );
  });

  it("opens stored media of the person's own chats only", async () => {
    const { send, person } = await chat();
    const { message } = await send({
      type: "image",
      content: "p",
      imageData: dataUrl("image/png", pngBytes()),
    });
    const media = await getPersonMessageMedia(t.deps, person.id, message.id);
    expect([media.mimeType, media.kind, media.name, media.bytes.equals(pngBytes())]).toEqual([
      "image/png",
      "image",
      null,
      true,
    ]);
    const { message: text } = await send({ type: "text", content: "no media" });
    expect(await codeOf(getPersonMessageMedia(t.deps, person.id, text.id))).toBe("not_found");
    const stranger = await createUser(t.deps, {});
    expect(await codeOf(getPersonMessageMedia(t.deps, stranger.id, message.id))).toBe("not_found");
  });
});

describe("streamed replies", () => {
  it("a reply left open by a dead worker is discarded by the maintenance sweep, never stored", async () => {
    const { agent, person, conversationId } = await chat();
    const reply = await startStreamedReply(t.deps, {
      agentId: agent.id,
      connectionId: "a-connection-that-died",
      streamId: "r",
      conversationId,
    });
    await appendReplyDelta(t.deps, agent.id, reply, "half a thought");
    const open = async () =>
      (await listPersonMessages(t.deps, person.id, conversationId)).openReplies;
    expect((await open()).map((r) => r.text)).toEqual(["half a thought"]);
    // Not yet: a live connection ends its own idle replies first.
    t.clock.advance(t.config.STREAM_REPLY_IDLE_S * 1000);
    expect(await cleanupExpired(t.deps)).toMatchObject({ replies: 0 });
    t.clock.advance(t.config.STREAM_REPLY_IDLE_S * 1000 + 1);
    expect(await cleanupExpired(t.deps)).toMatchObject({ replies: 1 });
    expect(await open()).toEqual([]);
    // Its socket closed without reply.end: the partial text is gone, as after reply.abort.
    const page = await listPersonMessages(t.deps, person.id, conversationId);
    expect(page.messages.map((m) => m.id)).not.toContain(reply.messageId);
    expect(page.messages.map((m) => m.content)).not.toContain("half a thought");
  });
});
