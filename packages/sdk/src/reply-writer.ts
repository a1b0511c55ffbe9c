import type { AgentMessage, ClientFrame } from "@switchboard/contract";
import type { SwitchboardError } from "./errors";

/**
 * One streamed reply. `write(text)` adds text (gathered into as few `reply.delta` frames as the
 * stream's limits need; nothing is dropped), `end()` stores it as one message and resolves with
 * it, `abort()` discards it. After a refusal (`blocked`, …) `write` throws and `end` rejects.
 */
export class ReplyWriter {
  messageId = "";
  conversationId = "";
  readonly started: Promise<this>;
  private resolveStarted!: (writer: this) => void;
  private rejectStarted!: (error: SwitchboardError) => void;
  private ending: { resolve: (message: AgentMessage) => void; reject: (e: Error) => void } | null =
    null;
  private failure: SwitchboardError | null = null;
  private state: "starting" | "open" | "ending" | "done" = "starting";

  constructor(
    readonly streamId: string,
    private readonly outbox: FrameSink,
    private readonly forget: () => void,
  ) {
    this.started = new Promise((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.started.catch(() => {});
  }

  write(text: string): void {
    if (this.failure) throw this.failure;
    if (this.state !== "open")
      throw new TypeError(`The reply is ${this.state}; write before end()`);
    if (text) this.outbox.delta(this.streamId, text);
  }

  /** Stores the reply as one text message (`reply.ended`) and resolves with it. */
  end(): Promise<AgentMessage> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.state !== "open") return Promise.reject(new TypeError(`The reply is ${this.state}`));
    this.state = "ending";
    const ended = new Promise<AgentMessage>((resolve, reject) => {
      this.ending = { resolve, reject };
    });
    this.outbox.push({ type: "reply.end", streamId: this.streamId });
    return ended;
  }

  /** Discards the reply: the person's screen drops the partial text, nothing is stored. */
  async abort(): Promise<void> {
    if (this.state === "done") return;
    this.state = "done";
    this.forget();
    this.outbox.push({ type: "reply.abort", streamId: this.streamId });
  }

  onStarted(messageId: string, conversationId: string): void {
    this.messageId = messageId;
    this.conversationId = conversationId;
    this.state = "open";
    this.resolveStarted(this);
  }

  onEnded(message: AgentMessage): void {
    this.state = "done";
    this.forget();
    this.ending?.resolve(message);
  }

  onFailed(error: SwitchboardError): void {
    if (this.state === "done") return;
    this.failure = error;
    this.forget();
    if (this.state === "starting") this.rejectStarted(error);
    this.ending?.reject(error);
    this.state = "done";
  }
}

/** Where a reply's frames go (the stream's paced outbox). */
export interface FrameSink {
  push(frame: ClientFrame): void;
  delta(streamId: string, text: string): void;
}
