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
import type { FrameContext } from "../frame-context";

type Frame<T extends ClientFrame["type"]> = Extract<ClientFrame, { type: T }>;

/** `typing`: the same as `POST /conversations/{id}/typing`. */
export async function handleTyping(context: FrameContext, frame: Frame<"typing">) {
  await setAgentTyping(context.deps, context.agentId, frame.conversationId, frame.typing);
}

/**
 * `reply.start`: re-authorized first (a paused or revoked agent is closed with 1008), then the
 * rules of `POST /messages`; at most STREAM_MAX_OPEN_REPLIES open on the connection.
 */
export async function handleReplyStart(context: FrameContext, frame: Frame<"reply.start">) {
  const { config } = context.deps;
  if (context.replies.has(frame.streamId))
    throw new CoreError("conflict", `A reply named ${frame.streamId} is already open`);
  if (context.replies.size >= config.STREAM_MAX_OPEN_REPLIES)
    throw new CoreError(
      "too_many_open_replies",
      `At most ${config.STREAM_MAX_OPEN_REPLIES} replies may be open on one connection; end one first`,
    );
  if (!(await context.reauthorize())) return;
  const reply = await startStreamedReply(context.deps, {
    agentId: context.agentId,
    connectionId: context.connectionId,
    streamId: frame.streamId,
    to: frame.to,
    conversationId: frame.conversationId,
  });
  // The socket closed while the reply started: it ends with its connection, unstored.
  if (!context.replies.add(frame.streamId, reply)) {
    await abortStreamedReply(context.deps, reply);
    return;
  }
  context.send({
    type: "reply.started",
    streamId: frame.streamId,
    messageId: reply.messageId,
    conversationId: reply.conversationId,
  });
}

/**
 * `reply.delta`: at most STREAM_DELTAS_PER_SEC a second per connection. A delta that fails for
 * any other reason than its length (the person blocked or removed the agent, a database error)
 * ends the reply unstored, its row removed: a reply is never forgotten while its row stays.
 */
export async function handleReplyDelta(context: FrameContext, frame: Frame<"reply.delta">) {
  const reply = context.replies.get(frame.streamId);
  context.replies.countDelta();
  try {
    await appendReplyDelta(context.deps, context.agentId, reply, frame.text);
  } catch (error) {
    if (!(error instanceof CoreError && error.code === "reply_too_long")) {
      context.replies.delete(frame.streamId, reply);
      // Already gone when the person's refusal discarded it; if the database is out of reach,
      // the maintenance sweep discards it later (never stores it).
      await abortStreamedReply(context.deps, reply).catch(() => {});
    }
    throw error;
  }
  context.replies.touch(frame.streamId);
}

export async function handleReplyEnd(context: FrameContext, frame: Frame<"reply.end">) {
  await endReply(context, frame.streamId, context.replies.get(frame.streamId));
}

export async function handleReplyAbort(context: FrameContext, frame: Frame<"reply.abort">) {
  const reply = context.replies.get(frame.streamId);
  context.replies.delete(frame.streamId);
  await abortStreamedReply(context.deps, reply);
}

/** Ends a reply (on `reply.end` or when idle): the stored message, as `reply.ended`. */
export async function endReply(context: FrameContext, streamId: string, reply: OpenReply) {
  context.replies.delete(streamId);
  const message = await endStreamedReply(context.deps, context.agentId, reply);
  context.send({ type: "reply.ended", streamId, message });
}
