import type { ClientFrame } from "@switchboard/contract";
import {
  abortStreamedReply,
  appendReplyDelta,
  CoreError,
  endStreamedReply,
  type OpenReply,
  setAgentTyping,
  startStreamedReply,
} from "@switchboard/core";
import type { StreamConnection } from "../connection";

type Frame<T extends ClientFrame["type"]> = Extract<ClientFrame, { type: T }>;

/** `typing`: the same as `POST /conversations/{id}/typing`. */
export async function handleTyping(connection: StreamConnection, frame: Frame<"typing">) {
  await setAgentTyping(connection.deps, connection.agentId, frame.conversationId, frame.typing);
}

/**
 * `reply.start`: re-authorized first (a paused or revoked agent is closed with 1008), then the
 * rules of `POST /messages`; at most STREAM_MAX_OPEN_REPLIES open on the connection.
 */
export async function handleReplyStart(connection: StreamConnection, frame: Frame<"reply.start">) {
  const { config } = connection.deps;
  if (connection.replies.has(frame.streamId))
    throw new CoreError("conflict", `A reply named ${frame.streamId} is already open`);
  if (connection.replies.size >= config.STREAM_MAX_OPEN_REPLIES)
    throw new CoreError(
      "too_many_open_replies",
      `At most ${config.STREAM_MAX_OPEN_REPLIES} replies may be open on one connection; end one first`,
    );
  if (!(await connection.reauthorize())) return;
  const reply = await startStreamedReply(connection.deps, {
    agentId: connection.agentId,
    connectionId: connection.options.lease.id,
    streamId: frame.streamId,
    to: frame.to,
    conversationId: frame.conversationId,
  });
  connection.openReply(frame.streamId, reply);
  connection.send({
    type: "reply.started",
    streamId: frame.streamId,
    messageId: reply.messageId,
    conversationId: reply.conversationId,
  });
}

/** `reply.delta`: at most STREAM_DELTAS_PER_SEC a second per connection. */
export async function handleReplyDelta(connection: StreamConnection, frame: Frame<"reply.delta">) {
  const reply = connection.openReplyOf(frame.streamId);
  connection.countDelta();
  await appendReplyDelta(connection.deps, reply, frame.text);
  connection.touchReply(frame.streamId);
}

export async function handleReplyEnd(connection: StreamConnection, frame: Frame<"reply.end">) {
  await endReply(connection, frame.streamId, connection.openReplyOf(frame.streamId));
}

export async function handleReplyAbort(connection: StreamConnection, frame: Frame<"reply.abort">) {
  const reply = connection.openReplyOf(frame.streamId);
  connection.closeReply(frame.streamId);
  await abortStreamedReply(connection.deps, reply);
}

/** Ends a reply (on `reply.end` or when idle): the stored message, as `reply.ended`. */
export async function endReply(connection: StreamConnection, streamId: string, reply: OpenReply) {
  connection.closeReply(streamId);
  const message = await endStreamedReply(connection.deps, connection.agentId, reply);
  connection.send({ type: "reply.ended", streamId, message });
}
