import type { ClientFrame } from "@switchboard/contract";
import type { FrameSink } from "./reply-writer";

/**
 * Client frames, paced to the connection's limits: at most `framesPerMinute` in any 61 s (a
 * sliding window is stricter than the service's fixed minute, with a second of slack for
 * transit) and `deltasPerSecond` deltas in any second. Text written while a delta waits joins
 * it, so a fast writer sends fewer, longer deltas instead of losing any.
 */
export class Outbox implements FrameSink {
  private queue: { frame: ClientFrame; at: number }[] = [];
  private sent: number[] = [];
  private deltas: number[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly transmit: (frame: ClientFrame) => boolean,
    private readonly limits: {
      framesPerMinute: number;
      deltasPerSecond: number;
      deltaDelayMs: number;
    },
  ) {}

  push(frame: ClientFrame): void {
    this.queue.push({ frame, at: Date.now() });
    this.pump();
  }

  delta(streamId: string, text: string): void {
    const last = this.queue.findLast(
      (item) => "streamId" in item.frame && item.frame.streamId === streamId,
    );
    if (last?.frame.type === "reply.delta") last.frame.text += text;
    else this.push({ type: "reply.delta", streamId, text });
  }

  clear(): void {
    this.queue = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private pump(): void {
    if (this.timer) return;
    while (this.queue.length > 0) {
      const now = Date.now();
      this.sent = this.sent.filter((at) => at > now - 61_000);
      this.deltas = this.deltas.filter((at) => at > now - 1000);
      const head = this.queue[0] as { frame: ClientFrame; at: number };
      const isDelta = head.frame.type === "reply.delta";
      let waitMs = 0;
      if (this.sent.length >= this.limits.framesPerMinute)
        waitMs = (this.sent[0] as number) + 61_000 - now;
      else if (isDelta && this.deltas.length >= this.limits.deltasPerSecond)
        waitMs = (this.deltas[0] as number) + 1000 - now;
      else if (isDelta && this.queue.length === 1)
        waitMs = head.at + this.limits.deltaDelayMs - now;
      if (waitMs > 0) {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.pump();
        }, waitMs);
        return;
      }
      this.queue.shift();
      if (!this.transmit(head.frame)) continue;
      this.sent.push(now);
      if (isDelta) this.deltas.push(now);
    }
  }
}
