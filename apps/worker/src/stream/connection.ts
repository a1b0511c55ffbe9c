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
  checkOpenReply,
  controlTopic,
  type Lease,
  latestSeq,
  log,
  metrics,
  type OpenReply,
  readEvents,
} from "@switchboard/core";
import { describeError, isDatabaseUnavailable } from "@switchboard/db";
import type { WebSocket } from "ws";
import type { FrameContext, FrameHandler } from "./frame-context";
import { endReply, frameHandlers } from "./frames";
import { OpenReplies } from "./open-replies";

export interface ConnectionOptions {
  agentId: string;
  token: string;
  lease: Lease;
  /** Resume after this seq; without it only events from now on are sent. */
  afterSeq?: number;
}

/**
 * One agent's stream connection: replays from `afterSeq`, then follows the event log live with
 * no gap or duplicate at the hand-over (one cursor, one pump), answers client frames, and
 * re-checks the token on every ping and heartbeat (closing with 1008 and the error code).
 *
 * Flow: the pump stops while more than STREAM_SEND_BUFFER_BYTES wait unsent and goes on when
 * the client has read them, so a slow reader costs a bounded buffer, not the whole log; one that
 * does not read at all cannot answer the heartbeat's ping either and is dropped. Each heartbeat
 * and client `ping` also re-reads the log, so a lost wake-up delays events by a beat at most.
 * Every other frame the server sends is bounded too: past twice that buffer the client is not
 * reading what it asks for, and it is dropped at once. Past the frame rate limit the client is
 * answered once, then ignored, then closed.
 *
 * Owner control: a NOTIFY on the agent's control topic (pause, suspension, revoke, a person's
 * block or removal) re-checks at once: the stream closes with 1008 and the code, or the open
 * replies to a person who no longer accepts them end with that person's refusal.
 */
export class StreamConnection implements FrameContext {
  private cursor = 0;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private drainWait: NodeJS.Timeout | null = null;
  private closed = false;
  private alive = true;
  private frames = { windowStart: 0, count: 0 };
  private rechecking: Promise<void> | null = null;
  private recheckAgain = false;
  readonly replies: OpenReplies;
  private readonly cleanups: (() => void | Promise<void>)[] = [];
  /** Client frames are handled one at a time, in the order they arrived. */
  private inbox: Promise<void> = Promise.resolve();

  /** When hello went out (0 before: the connection never opened). */
  private openedAt = 0;
  private framesIn = 0;

  constructor(
    readonly ws: WebSocket,
    readonly deps: CoreDeps,
    readonly options: ConnectionOptions,
  ) {
    this.replies = new OpenReplies(deps.config, (streamId, reply) => this.endIdle(streamId, reply));
  }

  get agentId(): string {
    return this.options.agentId;
  }

  get connectionId(): string {
    return this.options.lease.id;
  }

  catchUp(): void {
    this.pump();
  }

  async start(): Promise<void> {
    // Frames that arrive before hello wait for it.
    let ready!: () => void;
    this.inbox = new Promise((resolve) => {
      ready = resolve;
    });
    this.ws.on("message", (data, isBinary) => {
      if (this.closed) return;
      this.framesIn += 1;
      metrics.streamFrames.inc({ direction: "in" });
      // Counted as it arrives, so a flood is refused before anything queues for it.
      if (!this.countFrame()) return;
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
    this.cleanups.push(
      await this.deps.notifier.subscribe(controlTopic(this.agentId), () => this.recheck()),
    );
    const seq = await latestSeq(this.deps, this.agentId);
    this.cursor = this.options.afterSeq ?? seq;
    this.send({ type: "hello", seq });
    this.openedAt = performance.now();
    metrics.streamConnections.inc();
    log.info(
      {
        agentId: this.agentId,
        connectionId: this.connectionId,
        afterSeq: this.options.afterSeq ?? null,
      },
      "stream connected",
    );
    ready();
    this.pump();

    const heartbeat = setInterval(
      () =>
        void this.heartbeat().catch((error) => {
          // The database is briefly out of reach (or shutting down): try again next beat.
          if (!this.closed)
            log.warn(
              { agentId: this.agentId, err: describeError(error) },
              "stream heartbeat failed",
            );
        }),
      this.deps.config.STREAM_HEARTBEAT_S * 1000,
    );
    this.cleanups.push(() => clearInterval(heartbeat));
  }

  send(frame: ServerFrame): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    // The pump keeps events within one buffer; answers get a second. A client past that is not
    // reading what it asks for: dropped now rather than queued for.
    if (this.ws.bufferedAmount > 2 * this.deps.config.STREAM_SEND_BUFFER_BYTES) {
      log.warn(
        { agentId: this.agentId, connectionId: this.connectionId },
        "stream reader too slow",
      );
      this.ws.terminate();
      void this.dispose();
      return;
    }
    this.ws.send(JSON.stringify(frame));
    metrics.streamFrames.inc({ direction: "out" });
    if (frame.type === "error") metrics.refusals.inc({ code: frame.error.code });
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

  /** Closes with `code` and `reason`; a client that does not answer the close within 1 s is cut. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.ws.close(code, reason);
    setTimeout(() => {
      if (this.ws.readyState !== this.ws.CLOSED) this.ws.terminate();
    }, 1000).unref();
    void this.dispose();
  }

  /**
   * The agent's standing changed (control topic): re-authorize (closing with 1008 and the code
   * when it may no longer stream), then re-check every open reply's person; a reply they no
   * longer accept ends unstored with their refusal. Wake-ups during a run make it run once more.
   */
  private recheck(): void {
    if (this.closed) return;
    if (this.rechecking) {
      this.recheckAgain = true;
      return;
    }
    this.rechecking = (async () => {
      do {
        this.recheckAgain = false;
        if (!(await this.reauthorize())) return;
        for (const [streamId, reply] of this.replies.entries()) {
          try {
            await checkOpenReply(this.deps, this.agentId, reply);
          } catch (error) {
            if (!(error instanceof CoreError)) throw error;
            this.replies.delete(streamId, reply);
            this.sendError(error.code, error.message, { streamId, ...error.details });
          }
        }
      } while (this.recheckAgain && !this.closed);
    })()
      .catch((error) =>
        log.error({ agentId: this.agentId, err: describeError(error) }, "stream recheck failed"),
      )
      .finally(() => {
        this.rechecking = null;
      });
  }

  /**
   * Sends every event after the cursor; calls during a run make it run once more. Stops while
   * the socket's unsent bytes are above STREAM_SEND_BUFFER_BYTES and picks up when they drain.
   */
  private pump(): void {
    // A wake-up between subscribing and hello finds no cursor yet; start() pumps after hello.
    if (!this.openedAt) return;
    if (this.pumping || this.drainWait) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        for (;;) {
          if (this.closed) return;
          if (this.congested()) return this.waitForDrain();
          const page = await readEvents(this.deps, this.agentId, this.cursor, 100);
          for (const event of page.events) {
            if (this.closed) return;
            this.send({ type: "event", event });
            this.cursor = event.seq;
            if (this.congested()) break;
          }
          if (page.events.length < 100 && !this.congested()) break;
        }
      } while (this.pumpAgain);
    })()
      .catch((error) =>
        log.error({ agentId: this.agentId, err: describeError(error) }, "stream pump failed"),
      )
      .finally(() => {
        this.pumping = null;
      });
  }

  private congested(): boolean {
    return this.ws.bufferedAmount > this.deps.config.STREAM_SEND_BUFFER_BYTES;
  }

  /** Looks again every 50 ms until the client has read the buffer down, then pumps on. */
  private waitForDrain(): void {
    this.drainWait = setInterval(() => {
      if (this.closed || !this.congested()) {
        if (this.drainWait) clearInterval(this.drainWait);
        this.drainWait = null;
        if (!this.closed) this.pump();
      }
    }, 50);
  }

  private async receive(text: string, isBinary: boolean): Promise<void> {
    if (this.closed) return;
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
      const named = JSON.stringify(type ?? null);
      this.sendError(
        "validation_error",
        `Unknown frame type ${named.length > 70 ? `${named.slice(0, 64)}…` : named}`,
      );
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
    const handler = frameHandlers[frame.type] as FrameHandler;
    try {
      await handler(this, frame);
    } catch (error) {
      const streamId = "streamId" in frame ? frame.streamId : undefined;
      if (error instanceof CoreError)
        this.sendError(error.code, error.message, { streamId, ...error.details });
      else if (isDatabaseUnavailable(error))
        this.sendError("unavailable", "The service is briefly unavailable; retry shortly", {
          streamId,
        });
      else {
        log.error(
          { agentId: this.agentId, frame: frame.type, err: describeError(error) },
          "stream frame failed",
        );
        this.sendError("internal_error", "Something went wrong on our side", { streamId });
      }
    }
  }

  /** A reply with no delta for STREAM_REPLY_IDLE_S is ended as if the agent had sent reply.end. */
  private endIdle(streamId: string, reply: OpenReply): void {
    this.inbox = this.inbox.then(() =>
      endReply(this, streamId, reply).catch((error) => {
        if (error instanceof CoreError)
          this.sendError(error.code, `Idle reply ended: ${error.message}`, { streamId });
        else
          log.error({ agentId: this.agentId, err: describeError(error) }, "idle reply end failed");
      }),
    );
  }

  /**
   * At most STREAM_FRAMES_PER_MIN client frames per minute on this connection. The first frame
   * past it is answered `rate_limited`, later ones are dropped unanswered (no answer per frame
   * to pile up), and a client that sends as many again in the same minute is closed with 1008.
   */
  private countFrame(): boolean {
    const windowStart = Math.floor(Date.now() / 60_000) * 60_000;
    if (windowStart !== this.frames.windowStart) this.frames = { windowStart, count: 0 };
    this.frames.count += 1;
    const max = this.deps.config.STREAM_FRAMES_PER_MIN;
    if (this.frames.count <= max) return true;
    // After the answers to the frames before, in order, like the one rate_limited answer.
    if (this.frames.count === 2 * max + 1)
      this.inbox = this.inbox.then(() => this.close(1008, "rate_limited"));
    if (this.frames.count !== max + 1) return false;
    const retry = Math.ceil((windowStart + 60_000 - Date.now()) / 1000);
    this.inbox = this.inbox.then(() =>
      this.send({
        type: "error",
        error: {
          code: "rate_limited",
          message: `At most ${max} frames per minute per connection`,
          retryAfterSeconds: retry,
        },
      }),
    );
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
    if (!(await this.reauthorize())) return;
    this.pump();
  }

  private async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.openedAt) metrics.streamConnections.dec();
    log.info(
      {
        agentId: this.agentId,
        connectionId: this.connectionId,
        seconds: this.openedAt ? Math.round((performance.now() - this.openedAt) / 100) / 10 : 0,
        framesIn: this.framesIn,
      },
      "stream closed",
    );
    if (this.drainWait) clearInterval(this.drainWait);
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
    // A reply cannot be finished without its connection: its partial text is discarded.
    for (const reply of this.replies.clear())
      await abortStreamedReply(this.deps, reply).catch(() => {});
    // If the database is unreachable (shutting down), the lease simply expires on its own.
    await this.options.lease.release().catch(() => {});
  }
}
