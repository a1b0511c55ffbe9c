import { z } from "zod";
import { ApiErrorBody } from "./errors";
import { AgentEvent } from "./events";
import { AgentMessage } from "./messages";
import { StorableText } from "./unstorable-text";

/** Frames of the real-time stream (`{ws_url}/ws/agent/v1/stream`); `type` names the frame. */

export const StreamId = StorableText.min(1).max(64);

export const ClientPingFrame = z.strictObject({ type: z.literal("ping") });
export const ClientTypingFrame = z.strictObject({
  type: z.literal("typing"),
  conversationId: StorableText.min(1),
  typing: z.boolean(),
});
export const ClientReplyStartFrame = z
  .strictObject({
    type: z.literal("reply.start"),
    streamId: StreamId,
    conversationId: StorableText.min(1).optional(),
    to: StorableText.min(1).optional(),
  })
  .refine((f) => (f.conversationId === undefined) !== (f.to === undefined), {
    message: "give exactly one of conversationId or to",
  });
export const ClientReplyDeltaFrame = z.strictObject({
  type: z.literal("reply.delta"),
  streamId: StreamId,
  text: StorableText.min(1),
});
export const ClientReplyEndFrame = z.strictObject({
  type: z.literal("reply.end"),
  streamId: StreamId,
});
export const ClientReplyAbortFrame = z.strictObject({
  type: z.literal("reply.abort"),
  streamId: StreamId,
});

export const ClientFrame = z.union([
  ClientPingFrame,
  ClientTypingFrame,
  ClientReplyStartFrame,
  ClientReplyDeltaFrame,
  ClientReplyEndFrame,
  ClientReplyAbortFrame,
]);
export type ClientFrame = z.infer<typeof ClientFrame>;
/** Each client frame's schema by its `type`, so a bad frame's issues name its own fields. */
export const clientFrameSchemas = {
  ping: ClientPingFrame,
  typing: ClientTypingFrame,
  "reply.start": ClientReplyStartFrame,
  "reply.delta": ClientReplyDeltaFrame,
  "reply.end": ClientReplyEndFrame,
  "reply.abort": ClientReplyAbortFrame,
} as const;
export type ClientFrameType = keyof typeof clientFrameSchemas;

export const ServerFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), seq: z.number().int() }),
  z.object({ type: z.literal("event"), event: AgentEvent }),
  z.object({ type: z.literal("pong") }),
  z.object({
    type: z.literal("reply.started"),
    streamId: StreamId,
    messageId: z.string(),
    conversationId: z.string(),
  }),
  z.object({
    type: z.literal("reply.ended"),
    streamId: StreamId,
    message: AgentMessage,
  }),
  z.object({ type: z.literal("error"), streamId: StreamId.optional(), error: ApiErrorBody }),
]);
export type ServerFrame = z.infer<typeof ServerFrame>;

/** Query of the upgrade request. */
export const StreamConnectQuery = z.strictObject({
  token: z.string().optional(),
  afterSeq: z
    .string()
    .regex(/^\d{1,15}$/, "must be a whole number")
    .transform(Number)
    .optional(),
});
