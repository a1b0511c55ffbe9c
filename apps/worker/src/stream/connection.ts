import {
  type ClientFrame,
  type ClientFrameType,
  clientFrameSchemas,
  type ErrorCode,
  type ServerFrame,
  toErrorIssues,
} from "@switchboard/contract";
import {
  abortStreamedReply,
  assertAgentActive,
  authenticateAgent,
  type CoreDeps,
  CoreError,
  type Lease,
  latestSeq,
  type OpenReply,
  readEvents,
} from "@switchboard/core";
import type { WebSocket } from "ws";
import { handlePing } from "./frames/ping";
import {
  endReply,
  handleReplyAbort,
  handleReplyDelta,
  handleReplyEnd,
  handleReplyStart,
  handleTyping,
} from "./frames/replies";

export interface ConnectionOptions {
  agentId: string;
  token: string;
  lease: Lease;
  /** Resume after this seq; without it only events from now on are sent. */
  afterSeq?: number;
}

export type FrameHandler<F extends ClientFrame = ClientFrame> = (
  connection: StreamConnection,
  frame: F,
) => Promise<void>;

const handlers: { [T in ClientFrame["type"]]: FrameHandler<Extract<ClientFrame, { type: T }>> } = {
  ping: handlePing,
  typing: handleTyping,
  "reply.start": handleReplyStart,
  "reply.delta": handleReplyDelta,
  "reply.end": handleReplyEnd,
  "reply.abort": handleReplyAbort,
};

/**
 * One agent's stream connection: replays from `afterSeq`, then follows the event log live with
 * no gap or duplicate at the hand-over (one cursor, one pump), answers client frames, and
 * re-checks the token on every ping and heartbeat (closing with 1008 and the error code).
 */
export class StreamConnection {
  private cursor = 0;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private closed = false;
  private alive = true;
  private frames = { windowStart: 0, count: 0 };
  private deltas = { windowStart: 0, count: 0 };
  /** Replies open on this connection by the agent's `streamId`, each with its idle timer. */
  readonly replies = new Map<string, { reply: OpenReply; idle: ReturnType<typeof setTimeout> }>();
  private readonly cleanups: (() => void | Promise<void>)[] = [];
  /** Client frames are handled one at a time, in the order they arrived. */
  private inbox: Promise<void> = Promise.resolve();

  constructor(
    readonly ws: WebSocket,
    readonly deps: CoreDeps,
    readonly options: ConnectionOptions,
  ) {}

  get agentId(): string {
    return this.options.agentId;
  }

  async start(): Promise<void> {
    // Frames that arrive before hello wait for it.
    let ready!: () => void;
    this.inbox = new Promise((resolve) => {
      ready = resolve;
    });
    this.ws.on("message", (data, isBinary) => {
      this.inbox = this.inbox.then(() => this.receive(data.toString(), isBinary));
    });
    this.ws.on("pong", () => {
      this.alive = true;
    });
    this.ws.on("close", () => void this.dispose());
    this.ws.on("error", () => void this.dispose());

    // Subscribe before reading the cursor: an event committed in between is pumped, not lost.
    const unsubscribe = await this.deps.notifier.subscribe(`agent:${this.agentId}`, () =>
      this.pump(),
    );
    this.cleanups.push(unsubscribe);
    const seq = await latestSeq(this.deps, this.agentId);
    this.cursor = this.options.afterSeq ?? seq;
    this.send({ type: "hello", seq });
    ready();
    this.pump();

    const heartbeat = setInterval(
      () =>
        void this.heartbeat().catch((error) => {
          // The database is briefly out of reach (or shutting down): try again next beat.
          if (!this.closed) console.warn(`stream heartbeat failed: ${(error as Error).message}`);
        }),
      this.deps.config.STREAM_HEARTBEAT_S * 1000,
    );
    this.cleanups.push(() => clearInterval(heartbeat));
  }

  send(frame: ServerFrame): void {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame));
  }

  sendError(
    code: ErrorCode,
    message: string,
    extra: { streamId?: string; issues?: { path: string; message: string }[] } = {},
  ) {
    const { streamId, ...details } = extra;
    this.send({
      type: "error",
      ...(streamId && { streamId }),
      error: { code, message, ...details },
    });
  }

  /** Re-checks token, owner and pause; on failure closes with 1008 and the error code. */
  async reauthorize(): Promise<boolean> {
    try {
      assertAgentActive(await authenticateAgent(this.deps, this.options.token));
      return true;
    } catch (error) {
      if (!(error instanceof CoreError)) throw error;
      this.close(1008, error.code);
      return false;
    }
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    void this.dispose();
  }

  /** Sends every event after the cursor; calls during a run make it run once more. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        for (;;) {
          if (this.closed) return;
          const page = await readEvents(this.deps, this.agentId, this.cursor, 100);
          for (const event of page.events) this.send({ type: "event", event });
          this.cursor = page.nextSeq;
          if (page.events.length < 100) break;
        }
      } while (this.pumpAgain);
    })()
      .catch((error) => console.error("stream pump failed", error))
      .finally(() => {
        this.pumping = null;
      });
  }

  private async receive(text: string, isBinary: boolean): Promise<void> {
    if (!this.countFrame()) return;
    let json: unknown;
    try {
      if (isBinary) throw new Error("binary frames are not accepted");
      json = JSON.parse(text);
    } catch (error) {
      this.sendError("validation_error", `The frame is not JSON text: ${(error as Error).message}`);
      return;
    }
    const type = (json as { type?: unknown })?.type;
    if (typeof type !== "string" || !Object.hasOwn(clientFrameSchemas, type)) {
      this.sendError("validation_error", `Unknown frame type ${JSON.stringify(type ?? null)}`);
      return;
    }
    const parsed = clientFrameSchemas[type as ClientFrameType].safeParse(json);
    if (!parsed.success) {
      this.sendError("validation_error", `The ${type} frame failed validation`, {
        issues: toErrorIssues(parsed.error),
      });
      return;
    }
    const frame = parsed.data as ClientFrame;
    const handler = handlers[frame.type] as FrameHandler;
    try {
      await handler(this, frame);
    } catch (error) {
      const streamId = "streamId" in frame ? frame.streamId : undefined;
      if (error instanceof CoreError)
        this.sendError(error.code, error.message, { streamId, ...error.details });
      else {
        console.error("stream frame failed", error);
        this.sendError("internal_error", "Something went wrong on our side", { streamId });
      }
    }
  }

  openReply(streamId: string, reply: OpenReply): void {
    this.replies.set(streamId, { reply, idle: this.idleTimer(streamId, reply) });
  }

  openReplyOf(streamId: string): OpenReply {
    const open = this.replies.get(streamId)?.reply;
    if (!open) throw new CoreError("not_found", `No open reply named ${streamId}`);
    return open;
  }

  /** A delta arrived: the reply's idle clock starts again. */
  touchReply(streamId: string): void {
    const open = this.replies.get(streamId);
    if (!open) return;
    clearTimeout(open.idle);
    open.idle = this.idleTimer(streamId, open.reply);
  }

  closeReply(streamId: string): void {
    const open = this.replies.get(streamId);
    if (open) clearTimeout(open.idle);
    this.replies.delete(streamId);
  }

  /** A reply with no delta for STREAM_REPLY_IDLE_S is ended as if the agent had sent reply.end. */
  private idleTimer(streamId: string, reply: OpenReply) {
    return setTimeout(() => {
      this.inbox = this.inbox.then(() =>
        endReply(this, streamId, reply).catch((error) => {
          if (error instanceof CoreError)
            this.sendError(error.code, `Idle reply ended: ${error.message}`, { streamId });
          else console.error("idle reply end failed", error);
        }),
      );
    }, this.deps.config.STREAM_REPLY_IDLE_S * 1000);
  }

  /** At most STREAM_DELTAS_PER_SEC deltas a second on this connection (else 429, not added). */
  countDelta(): void {
    const windowStart = Math.floor(Date.now() / 1000) * 1000;
    if (windowStart !== this.deltas.windowStart) this.deltas = { windowStart, count: 0 };
    this.deltas.count += 1;
    const max = this.deps.config.STREAM_DELTAS_PER_SEC;
    if (this.deltas.count > max)
      throw new CoreError(
        "rate_limited",
        `At most ${max} deltas a second; this one was not added`,
        {
          retryAfterSeconds: 1,
        },
      );
  }

  /** At most STREAM_FRAMES_PER_MIN client frames per minute on this connection. */
  private countFrame(): boolean {
    const windowStart = Math.floor(Date.now() / 60_000) * 60_000;
    if (windowStart !== this.frames.windowStart) this.frames = { windowStart, count: 0 };
    this.frames.count += 1;
    const max = this.deps.config.STREAM_FRAMES_PER_MIN;
    if (this.frames.count <= max) return true;
    const retry = Math.ceil((windowStart + 60_000 - Date.now()) / 1000);
    this.send({
      type: "error",
      error: {
        code: "rate_limited",
        message: `At most ${max} frames per minute per connection`,
        retryAfterSeconds: retry,
      },
    });
    return false;
  }

  private async heartbeat(): Promise<void> {
    if (!this.alive) {
      this.ws.terminate();
      await this.dispose();
      return;
    }
    this.alive = false;
    this.ws.ping();
    if (await this.reauthorize())
      await this.options.lease.renew(this.deps.config.STREAM_HEARTBEAT_S * 3000);
  }

  private async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
    // A reply cannot be finished without its connection: its partial text is discarded.
    for (const [streamId, { reply }] of [...this.replies]) {
      this.closeReply(streamId);
      await abortStreamedReply(this.deps, reply).catch(() => {});
    }
    // If the database is unreachable (shutting down), the lease simply expires on its own.
    await this.options.lease.release().catch(() => {});
  }
}
