import type { ClientFrame, ServerFrame } from "@switchboard/contract";
import type { CoreDeps } from "@switchboard/core";
import type { OpenReplies } from "./open-replies";

/**
 * What a client frame's handler may use of its connection: the narrow side of
 * `StreamConnection`, so the frame handlers do not import the connection.
 */
export interface FrameContext {
  readonly deps: CoreDeps;
  readonly agentId: string;
  /** The connection's lease id; open replies are recorded against it. */
  readonly connectionId: string;
  readonly replies: OpenReplies;
  send(frame: ServerFrame): void;
  /** Re-checks token, owner and pause; on failure closes with 1008 and answers false. */
  reauthorize(): Promise<boolean>;
  /** Re-reads the event log now (a NOTIFY may have been lost). */
  catchUp(): void;
}

export type FrameHandler<F extends ClientFrame = ClientFrame> = (
  context: FrameContext,
  frame: F,
) => Promise<void>;
