import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AgentMessage, type AgentScope, type AgentSendMessageRequest } from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { blockAgent, setInitiation } from "../consent/agent-settings";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { readEvents } from "../events/read-events";
import { createUser } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
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
import { codeOf, coreFailure, createTestDeps, testChat } from "../testing";
import { getMessageAudio } from "./get-message-audio";
import { listAgentConversations } from "./list-agent-conversations";
import { listAgentMessages, listAgentMessagesJson } from "./list-agent-messages";
import { listPersonChatRows } from "./list-person-chat-rows";
import { sendPersonMessage } from "./send-person-message";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const chat = (grant?: AgentScope[]) => testChat(t.deps, grant);

const eventsOf = async (agentId: string) => (await readEvents(t.deps, agentId, 0, 100)).events;

async function getObjectMime(data: string | undefined) {
  const stored = await postgresObjectStore.head(t.deps.db, objectIdFromPath(data ?? "") ?? "");
  return stored?.mimeType;
}

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
    // The route's answer, written by Postgres: the same bytes, every media group included.
    const json = async (query: { limit: number; before?: string }) =>
      (await listAgentMessagesJson(t.deps, agent.id, conversationId, query)).text;
    expect(await json({ limit: 50 })).toBe(JSON.stringify(history));
    const older = { limit: 3, before: document?.id };
    expect(await json(older)).toBe(
      JSON.stringify(await listAgentMessages(t.deps, agent.id, conversationId, older)),
    );
    expect((await eventsOf(agent.id)).map((e) => e.type)).toEqual(["contact.added"]);
    expect((await getAgentUsage(t.deps, agent.id)).usage.messages).toBe(8);
    const [listed] = (await listPersonChatRows(t.deps, person.id)).chats;
    expect(listed?.lastMessage?.id).toBe(document?.id);
  });

  it("history as the route's JSON: the same bytes as serialising the messages, whatever the text holds", async () => {
    const { send, agent, person, conversationId } = await chat();
    const texts = [
      'quotes " and \\ backslash / slash',
      "lines\nand\ttabs\r\u0001\u001f\u007f",
      "emoji 🎉, accents é, CJK 漢字, separators \u2028\u2029",
      "</script><b>markup</b>",
    ];
    const first = await send({ type: "text", content: texts[0] as string });
    for (const content of texts.slice(1))
      await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content });
    await send({ type: "text", content: "a reply", replyToId: first.message.id });
    const history = await listAgentMessages(t.deps, agent.id, conversationId, { limit: 50 });
    expect(history.messages.map((m) => m.content)).toEqual([...texts, "a reply"]);
    expect(history.messages.at(-1)?.replyToId).toBe(first.message.id);
    const json = await listAgentMessagesJson(t.deps, agent.id, conversationId, { limit: 50 });
    expect(json.text).toBe(JSON.stringify(history));
    // The access check still stands before the read: another agent reads nothing of it.
    const other = await chat();
    expect(
      await codeOf(listAgentMessagesJson(t.deps, other.agent.id, conversationId, { limit: 50 })),
    ).toBe("forbidden");
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
