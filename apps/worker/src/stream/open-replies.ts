import type { Config, OpenReply } from "@switchboard/core";
import { CoreError } from "@switchboard/core";

/**
 * The replies open on one connection by the agent's `streamId`, each with its idle timer, and
 * the connection's delta rate. A reply with no delta for STREAM_REPLY_IDLE_S is handed to
 * `onIdle` (which ends it as `reply.end` would).
 */
export class OpenReplies {
  private readonly open = new Map<string, { reply: OpenReply; idle: NodeJS.Timeout }>();
  private deltas = { windowStart: 0, count: 0 };
  /** Set once the connection is gone: a reply started after that is not taken. */
  private closed = false;

  constructor(
    private readonly config: Pick<Config, "STREAM_REPLY_IDLE_S" | "STREAM_DELTAS_PER_SEC">,
    private readonly onIdle: (streamId: string, reply: OpenReply) => void,
  ) {}

  get size(): number {
    return this.open.size;
  }

  has(streamId: string): boolean {
    return this.open.has(streamId);
  }

  /** Takes a started reply; false once the connection is gone (the caller must abort it). */
  add(streamId: string, reply: OpenReply): boolean {
    if (this.closed) return false;
    this.open.set(streamId, { reply, idle: this.idleTimer(streamId, reply) });
    return true;
  }

  /** Every open reply by its streamId, as they are now. */
  entries(): [string, OpenReply][] {
    return [...this.open].map(([streamId, { reply }]) => [streamId, reply]);
  }

  /** The open reply named `streamId`; `not_found` when there is none. */
  get(streamId: string): OpenReply {
    const open = this.open.get(streamId)?.reply;
    if (!open) throw new CoreError("not_found", `No open reply named ${streamId}`);
    return open;
  }

  /** A delta arrived: the reply's idle clock starts again. */
  touch(streamId: string): void {
    const open = this.open.get(streamId);
    if (!open) return;
    clearTimeout(open.idle);
    open.idle = this.idleTimer(streamId, open.reply);
  }

  /** Forgets the reply named `streamId` (only if it is still `reply`, when given). */
  delete(streamId: string, reply?: OpenReply): void {
    const open = this.open.get(streamId);
    if (!open || (reply && open.reply !== reply)) return;
    clearTimeout(open.idle);
    this.open.delete(streamId);
  }

  /** Forgets every open reply (the connection is gone), answering them; takes no more. */
  clear(): OpenReply[] {
    this.closed = true;
    const replies = [...this.open.keys()].map((streamId) => {
      const { reply } = this.open.get(streamId) as { reply: OpenReply };
      this.delete(streamId);
      return reply;
    });
    return replies;
  }

  /** At most STREAM_DELTAS_PER_SEC deltas a second on this connection (else 429, not added). */
  countDelta(): void {
    const windowStart = Math.floor(Date.now() / 1000) * 1000;
    if (windowStart !== this.deltas.windowStart) this.deltas = { windowStart, count: 0 };
    this.deltas.count += 1;
    const max = this.config.STREAM_DELTAS_PER_SEC;
    if (this.deltas.count > max)
      throw new CoreError(
        "rate_limited",
        `At most ${max} deltas a second; this one was not added`,
        {
          retryAfterSeconds: 1,
        },
      );
  }

  private idleTimer(streamId: string, reply: OpenReply) {
    return setTimeout(() => this.onIdle(streamId, reply), this.config.STREAM_REPLY_IDLE_S * 1000);
  }
}
