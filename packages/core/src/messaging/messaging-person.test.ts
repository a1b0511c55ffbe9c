import {
  type AgentScope,
  MessageReceivedPayload,
  MessageTranscriptPayload,
  PersonConversation,
} from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockAgent } from "../consent/agent-settings";
import { removeContact } from "../contacts/contacts";
import { notifyTopics, userTopic, wakeAfterCommit } from "../events/notifier";
import { readEvents } from "../events/read-events";
import { createUser, setUserSuspended } from "../identity/users";
import { cleanupExpired } from "../maintenance/cleanup";
import { dataUrl, oggBytes, pngBytes } from "../objects/test-media";
import { codeOf, coreFailure, createTestDeps, testChat } from "../testing";
import { addReaction } from "./add-reaction";
import { getPersonMessageMedia } from "./get-person-message-media";
import { listAgentMessages } from "./list-agent-messages";
import { listPersonChatRows } from "./list-person-chat-rows";
import { listPersonMessages } from "./list-person-messages";
import { markConversationRead } from "./mark-conversation-read";
import { markReadByPerson } from "./mark-read-by-person";
import { reactAsPerson } from "./react-as-person";
import { removeReaction } from "./remove-reaction";
import { sendPersonMessage } from "./send-person-message";
import { setAgentTyping } from "./set-agent-typing";
import { setMessageTranscript } from "./set-message-transcript";
import { setPersonTyping } from "./set-person-typing";
import { abortStreamedReply, appendReplyDelta, startStreamedReply } from "./streamed-replies";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const chat = (grant?: AgentScope[]) => testChat(t.deps, grant);

const eventsOf = async (agentId: string) => (await readEvents(t.deps, agentId, 0, 100)).events;

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
      await wakeAfterCommit(t.deps.sql, []); // a send's wake-ups follow its commit (0077)
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
      // A streamed reply's start and each delta (the delta's wake-up after its commit, 0077).
      let reply: Awaited<ReturnType<typeof startStreamedReply>> | undefined;
      const start = async () => {
        reply = await startStreamedReply(t.deps, {
          agentId: agent.id,
          connectionId: "conn_wake",
          streamId: "s1",
          conversationId,
        });
      };
      expect(await named(start)).toEqual(inChat);
      if (!reply) throw new Error("no reply started");
      const open = reply;
      expect(await named(() => appendReplyDelta(t.deps, agent.id, open, "Hel"))).toEqual(inChat);
      await abortStreamedReply(t.deps, reply);
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
