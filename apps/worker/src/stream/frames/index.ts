import type { ClientFrame } from "@switchboard/contract";
import type { FrameHandler } from "../frame-context";
import { handlePing } from "./ping";
import {
  handleReplyAbort,
  handleReplyDelta,
  handleReplyEnd,
  handleReplyStart,
  handleTyping,
} from "./replies";

/** One handler per client frame type. */
export const frameHandlers: {
  [T in ClientFrame["type"]]: FrameHandler<Extract<ClientFrame, { type: T }>>;
} = {
  ping: handlePing,
  typing: handleTyping,
  "reply.start": handleReplyStart,
  "reply.delta": handleReplyDelta,
  "reply.end": handleReplyEnd,
  "reply.abort": handleReplyAbort,
};

export { endReply } from "./replies";
