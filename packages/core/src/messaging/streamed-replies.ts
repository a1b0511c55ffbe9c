import type { AgentMessage, PersonOpenReply } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic, wakeAfterCommit } from "../events/notifier";
import { newId } from "../ids";
import { insertMessage, toAgentMessage } from "../sending/compose-message";
import { prepareMessage } from "../sending/prepare-message";
import { accessForSend, runSend } from "../sending/send-sequence";

const { conversationMembers, replyStreams } = schema;

/**
 * A reply an agent streams over the WebSocket, from `reply.start` to `reply.end`. Its text so
 * far lives in `reply_streams`, so the person's console (on any web process) shows it growing;
 * each step wakes the person's open apps. The stored message keeps the id given at the start.
 */

/** The reply being streamed, as its connection remembers it. */
export interface OpenReply {
  messageId: string;
  conversationId: string;
  personId: string;
}

/**
 * `reply.start`: the rules of `POST /messages` exactly (consent, `messages:write`, reply window,
 * blocks, suspension; refused starts are counted), and it is charged as one message, under the
 * per-recipient limit too, now rather than at the end.
 */
export async function startStreamedReply(
  deps: CoreDeps,
  start: {
    agentId: string;
    connectionId: string;
    streamId: string;
    to?: string;
    conversationId?: string;
  },
): Promise<OpenReply> {
  const { agentId } = start;
  return runSend(deps, {
    agentId,
    charge: "message",
    prepare: () => null,
    access: () =>
      accessForSend(
        deps,
        agentId,
        { to: start.to, conversationId: start.conversationId },
        "messages:write",
      ),
    store: async (tx, _prepared, access) => {
      const now = deps.clock.now();
      const reply = {
        messageId: newId("msg"),
        conversationId: access.conversationId,
        personId: access.person.id,
      };
      await tx.insert(replyStreams).values({
        messageId: reply.messageId,
        streamId: start.streamId,
        connectionId: start.connectionId,
        conversationId: reply.conversationId,
        senderId: agentId,
        startedAt: now,
        lastDeltaAt: now,
      });
      return { result: reply, wake: [userTopic(reply.personId, `chat:${reply.conversationId}`)] };
    },
  });
}

/**
 * `reply.delta`: appends text; a reply never passes `STREAM_MAX_REPLY_CHARS` characters. The
 * person's standing is re-read first, as at the end: once they block or remove the agent (or
 * withdraw `messages:write`), the reply is discarded and the delta refused with that code.
 */
export async function appendReplyDelta(
  deps: CoreDeps,
  agentId: string,
  reply: OpenReply,
  text: string,
): Promise<void> {
  await checkOpenReply(deps, agentId, reply);
  const max = deps.config.STREAM_MAX_REPLY_CHARS;
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(replyStreams)
      .set({ text: sql`${replyStreams.text} || ${text}`, lastDeltaAt: deps.clock.now() })
      .where(
        and(
          eq(replyStreams.messageId, reply.messageId),
          sql`char_length(${replyStreams.text}) + char_length(${text}) <= ${max}`,
        ),
      )
      .returning({ messageId: replyStreams.messageId });
    if (!row) {
      const [open] = await tx
        .select({ id: replyStreams.messageId })
        .from(replyStreams)
        .where(eq(replyStreams.messageId, reply.messageId));
      throw open
        ? new CoreError(
            "reply_too_long",
            `A streamed reply holds at most ${max} characters; this delta was not added`,
          )
        : new CoreError("not_found", "This reply is no longer open");
    }
  });
  // After the commit, coalesced with other deltas and sends (decision 0077): a delta is a
  // stream's hot path, and a NOTIFY in its transaction would serialise its commit.
  void wakeAfterCommit(deps.sql, [userTopic(reply.personId, `chat:${reply.conversationId}`)]);
}

/**
 * The person still takes the agent's messages in the reply's conversation; when they no longer
 * do (blocked, removed, `messages:write` withdrawn), the reply is discarded and the refusal
 * thrown. Every delta runs it, and so does the stream when the person's standing changes.
 */
export async function checkOpenReply(
  deps: CoreDeps,
  agentId: string,
  reply: OpenReply,
): Promise<void> {
  try {
    await replyAccess(deps, agentId, reply);
  } catch (error) {
    await takeReply(deps, reply).catch(() => {});
    throw error;
  }
}

/** The person still takes the agent's messages in the reply's conversation (not initiating). */
async function replyAccess(deps: CoreDeps, agentId: string, reply: OpenReply) {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId: reply.conversationId },
    { scope: "messages:write" },
  );
  return { ...access, recipientId: access.person.id };
}

/**
 * `reply.end` (or the idle end): stores the text as one text message under the reply's id. The
 * person must still accept the agent's messages (a block during the reply is honoured); an empty
 * reply stores nothing. Either way the open reply is gone.
 */
export async function endStreamedReply(
  deps: CoreDeps,
  agentId: string,
  reply: OpenReply,
): Promise<AgentMessage> {
  const text = await takeReply(deps, reply);
  if (text.trim() === "")
    throw new CoreError("validation_error", "The reply is empty, so nothing was stored", {
      issues: [{ path: "text", message: "must not be empty" }],
    });
  return runSend(deps, {
    agentId,
    charge: "none", // charged at reply.start
    prepare: () => prepareMessage(deps, { type: "text", content: text }),
    access: () => replyAccess(deps, agentId, reply),
    store: async (tx, prepared, access) => {
      const message = await insertMessage(tx, deps, {
        id: reply.messageId,
        conversationId: reply.conversationId,
        senderId: agentId,
        prepared,
        pushTo: reply.personId,
      });
      return {
        result: toAgentMessage(message, access.agent.num),
        wake: [userTopic(reply.personId, `chat:${reply.conversationId}`)],
      };
    },
  });
}

/** `reply.abort` (and a closed connection): the partial text goes; nothing is stored. */
export async function abortStreamedReply(deps: CoreDeps, reply: OpenReply): Promise<void> {
  await takeReply(deps, reply);
}

/** Removes the open reply, answering its text; the person's view drops it. */
async function takeReply(deps: CoreDeps, reply: OpenReply): Promise<string> {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(replyStreams)
      .where(eq(replyStreams.messageId, reply.messageId))
      .returning({ text: replyStreams.text });
    if (!row) throw new CoreError("not_found", "This reply is no longer open");
    await notifyTopics(tx, [userTopic(reply.personId, `chat:${reply.conversationId}`)]);
    return row.text;
  });
}

/**
 * Replies nobody has added to since `before`: their connection is gone (a worker that died, or
 * an abort whose delete failed), since a live connection ends its own idle replies. They are
 * discarded like any reply whose socket closed — partial text is never stored as a message;
 * only `reply.end` or the live idle end stores one.
 */
export async function endAbandonedReplies(deps: CoreDeps, before: Date): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const gone = await tx
      .delete(replyStreams)
      .where(lt(replyStreams.lastDeltaAt, before))
      .returning({ conversationId: replyStreams.conversationId, senderId: replyStreams.senderId });
    if (gone.length === 0) return 0;
    // The people who saw them grow: their open apps drop them.
    const people = await tx
      .selectDistinct({
        userId: conversationMembers.userId,
        conversationId: conversationMembers.conversationId,
      })
      .from(conversationMembers)
      .where(
        inArray(
          conversationMembers.conversationId,
          gone.map((row) => row.conversationId),
        ),
      );
    const senders = new Set(gone.map((row) => row.senderId));
    await notifyTopics(
      tx,
      people
        .filter((p) => !senders.has(p.userId))
        .map((p) => userTopic(p.userId, `chat:${p.conversationId}`)),
    );
    return gone.length;
  });
}

/** The replies being streamed into a conversation right now, oldest first (for chat views). */
export async function readOpenReplies(
  deps: CoreDeps,
  conversationId: string,
): Promise<PersonOpenReply[]> {
  const rows = await deps.db
    .select()
    .from(replyStreams)
    .where(eq(replyStreams.conversationId, conversationId))
    .orderBy(asc(replyStreams.startedAt));
  return rows.map((row) => ({
    messageId: row.messageId,
    senderId: row.senderId,
    text: row.text,
    startedAt: row.startedAt.toISOString(),
  }));
}
