import type { AgentMessage, MessageInput, MessageMedia } from "@switchboard/contract";
import { clientOf, type Sql, schema, type Tx } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { PendingQuery, Row } from "postgres";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { newId } from "../ids";
import { messagePushSelect } from "../notifications/send-push";
import { objectStoreOf } from "../objects/object-store";
import type { MediaInput } from "../objects/prepare-media";
import { safeDeclaredDocumentType } from "../objects/sniff-media";
import { storeMedia } from "../objects/store-media";
import { type PreparedMessage, prepareMessage } from "./prepare-message";

const { messages } = schema;

export type MessageRow = typeof messages.$inferSelect;

/**
 * Stores one message of any type, inside the caller's transaction; the one insert path for
 * agents, people, proposal cards and streamed replies. The reply target must be in the same
 * conversation; media is stored (or an `/objects/...` path checked against the sender); the
 * conversation's `lastMessageAt` moves; the sender stops showing as typing.
 */
export async function insertMessage(
  tx: Tx,
  deps: CoreDeps,
  message: {
    conversationId: string;
    senderId: string;
    /** The message, prepared (`prepareMessage`, `materializeMessage`); or plain `input` without tts. */
    prepared?: PreparedMessage;
    input?: MessageInput;
    agentActionId?: string;
    /** The id to store it under (a streamed reply's, given out at `reply.started`). */
    id?: string;
    /** Unused: who may reuse a stored object is decided by the sender's own conversations. */
    memberIds?: string[];
    /**
     * The person an agent's message is for: their devices get a push (a job, enqueued by the
     * insert's own statement, and only when they have a device; notifications/send-push.ts).
     */
    pushTo?: string;
  },
): Promise<MessageRow> {
  const { conversationId, senderId } = message;
  const prepared =
    message.prepared ?? prepareMessage(deps, message.input ?? { type: "text", content: "" });
  const { input } = prepared;
  if (prepared.speech) throw new Error("insertMessage before materializeMessage");
  const now = deps.clock.now();
  if (input.replyToId) {
    const [target] = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.id, input.replyToId), eq(messages.conversationId, conversationId)));
    if (!target)
      throw new CoreError("validation_error", "replyToId names no message of this conversation", {
        issues: [{ path: "replyToId", message: "no such message in this conversation" }],
      });
  }
  const store = (media: MediaInput | undefined) =>
    media ? storeMedia(tx, objectStoreOf(deps), media, senderId, now, deps.config) : undefined;
  const stored = await store(prepared.media);
  const thumbnail = await store(prepared.thumbnail);
  const pg = clientOf(tx);
  const parts = messageInsertParts(pg, message, prepared, now, stored, thumbnail);
  const [inserted] = await pg<{ pos: string }[]>`with ${parts.ctes} select pos from stored`;
  if (!inserted) throw new Error("message insert returned nothing");
  return { ...parts.row, pos: Number(inserted.pos) };
}

/** What a message needs no statement for: no reply target to look up, no media to store. */
export function insertsAtOnce(prepared: PreparedMessage): boolean {
  return !prepared.input.replyToId && !prepared.media && !prepared.thumbnail && !prepared.speech;
}

/**
 * The message's insert as the parts of a statement, built at once (no awaits): the CTEs
 * `pushed` (its push job), `touched` (the chat moving up the list), `stopped` (the sender no
 * longer typing) and, last, `stored` (the row, returning `pos`; reading it runs them all). `insertMessage` sends them as its
 * statement; a repeat send puts them in its one statement (decision 0083). A CTE that changes
 * rows runs whether or not the query reads it. The wake-ups are the caller's, issued after the
 * commit (decision 0077). postgres.js's own template (decision 0075): one fixed text per shape.
 */
export function messageInsertParts(
  pg: Sql,
  message: Pick<
    Parameters<typeof insertMessage>[2],
    "conversationId" | "senderId" | "agentActionId" | "id" | "pushTo"
  >,
  prepared: PreparedMessage,
  now: Date,
  stored?: { data: string; mimeType: string | null },
  thumbnail?: { data: string },
): { row: Omit<MessageRow, "pos">; ctes: PendingQuery<Row[]> } {
  const { conversationId, senderId } = message;
  const { input } = prepared;
  if (prepared.speech) throw new Error("insertMessage before materializeMessage");
  const data = stored?.data ?? "";
  const size = (w?: number) => w ?? null;
  const media: MessageMedia = {
    voice: { audio: { data, duration: prepared.audioDuration ?? null } },
    image: { image: { data, width: size(input.mediaWidth), height: size(input.mediaHeight) } },
    sticker: { image: { data, width: size(input.mediaWidth), height: size(input.mediaHeight) } },
    video: {
      video: {
        data,
        thumbnail: thumbnail?.data ?? null,
        width: size(input.mediaWidth),
        height: size(input.mediaHeight),
      },
    },
    document: {
      document: {
        data,
        name: input.documentName ?? null,
        size: input.documentSize ?? null,
        // What was stored (a safe type), else the declared one if it is passive.
        mimeType: stored?.mimeType ?? safeDeclaredDocumentType(input.documentMimeType),
      },
    },
    location: {
      location: { latitude: input.latitude ?? "", longitude: input.longitude ?? "" },
    },
    contact: {
      sharedContact: {
        id: input.sharedContactId ?? null,
        num: input.sharedContactNum ?? "",
        name: input.sharedContactName ?? null,
        avatar: input.sharedContactAvatar ?? null,
        type: input.sharedContactType ?? null,
      },
    },
    text: {},
  }[input.type];

  const row: Omit<MessageRow, "pos"> = {
    id: message.id ?? newId("msg"),
    conversationId,
    senderId,
    type: input.type,
    content: input.content ?? input.tts?.text ?? "",
    replyToId: input.replyToId ?? null,
    agentActionId: message.agentActionId ?? null,
    media: input.type === "text" ? null : media,
    transcript: input.type === "voice" ? (prepared.transcript ?? null) : null,
    createdAt: now,
  };
  const ctes = pg`pushed as (${
    message.pushTo
      ? messagePushSelect(pg, { id: row.id, conversationId, userId: message.pushTo }, now)
      : pg`select 1`
  }), touched as (
    update conversations set last_message_at = ${now.toISOString()}::timestamptz
    where id = ${conversationId}
  ), stopped as (
    delete from typing_indicators
    where conversation_id = ${conversationId} and user_id = ${senderId}
  ), stored as (
    insert into messages (id, conversation_id, sender_id, type, content, reply_to_id,
      agent_action_id, media, transcript, created_at)
    values (${row.id}, ${conversationId}, ${senderId}, ${row.type}, ${row.content},
      ${row.replyToId}, ${row.agentActionId},
      ${row.media === null ? null : JSON.stringify(row.media)}::jsonb, ${row.transcript},
      ${now.toISOString()}::timestamptz)
    returning pos, (select count(*) from pushed) as pushed
  )`;
  return { row, ctes };
}

/** A stored message as the Agent API shows it: its type's media group only, a voice note's transcript once there is one. */
export function toAgentMessage(row: MessageRow, senderNum?: string): AgentMessage {
  const media = (row.media ?? {}) as MessageMedia;
  return {
    id: row.id,
    conversationId: row.conversationId,
    senderId: row.senderId,
    ...(senderNum !== undefined && { senderNum }),
    type: row.type,
    content: row.content,
    replyToId: row.replyToId,
    agentActionId: row.agentActionId,
    createdAt: row.createdAt.toISOString(),
    ...media,
    ...(row.type === "voice" && row.transcript !== null && { transcript: row.transcript }),
  };
}
