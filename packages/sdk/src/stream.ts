import type { AgentEvent, ClientFrame, ServerFrame } from "@switchboard/contract";
import { errorFromBody, SwitchboardError } from "./errors";
import { Outbox } from "./outbox";
import { ReplyWriter } from "./reply-writer";
import { errorStatus } from "./routes";
import {
  onRefusal,
  parseFrame,
  resolveWebSocket,
  type WebSocketConstructor,
  type WebSocketLike,
} from "./websocket";

export { ReplyWriter } from "./reply-writer";
export type { WebSocketConstructor, WebSocketLike } from "./websocket";

export interface StreamOptions {
  /** Resume after this seq; default: only events from the moment of connecting. */
  afterSeq?: number;
  /** A WebSocket class; default `ws` when installed (Node 20), else the global WebSocket. */
  WebSocket?: WebSocketConstructor;
  /** Reconnect after a drop, resuming after the last event seen. Default true. */
  reconnect?: boolean;
  /** First reconnect delay, doubled each failure (with jitter). Default 500 ms. */
  reconnectDelayMs?: number;
  /** Cap on the reconnect delay. Default 30 000 ms. */
  maxReconnectDelayMs?: number;
  /** A `ping` frame this often; no `pong` by the next one drops and reconnects. Default 25 000 ms; 0 turns it off. */
  pingIntervalMs?: number;
  /** Client frames per minute per connection (the service's STREAM_FRAMES_PER_MIN). Default 120. */
  framesPerMinute?: number;
  /** `reply.delta` frames per second (STREAM_DELTAS_PER_SEC). Default 20. */
  deltasPerSecond?: number;
  /** How long written text gathers into one delta before it is sent. Default 100 ms. */
  deltaDelayMs?: number;
}

export interface StreamListeners {
  /** Each new event, oldest first, never the same seq twice across reconnects. */
  event: (event: AgentEvent) => void;
  /** `error` frames not about an open reply (and a reply's non-fatal ones), and fatal closes. */
  error: (error: SwitchboardError) => void;
  /** The service said hello: on connect and on every reconnect. */
  open: (info: { seq: number; resumedAfter: number | null }) => void;
  /** The connection closed; `reconnecting` says whether the stream will come back by itself. */
  close: (info: { code: number; reason: string; reconnecting: boolean }) => void;
}

/** Where the stream connects, and as whom (the Agent API client). */
export interface StreamEndpoint {
  readonly token: string;
  readonly wsUrl: string;
}

/** Where a streamed reply goes: a conversation id, or `{ to: "<num>" }` / `{ conversationId }`. */
export type ReplyTarget = string | { conversationId: string } | { to: string };

/** Errors about a reply that leave it open: a dropped delta (rate) or one past the length. */
const NON_FATAL = new Set(["rate_limited", "reply_too_long"]);
/** Upgrade refusals that reconnecting cannot fix. */
const FATAL_STATUS = new Set([400, 401, 403, 404]);
/** Events kept for the first `event` listener; past this the oldest make way (a stream never listened to stays bounded). */
const MAX_EARLY_EVENTS = 1000;

/**
 * The real-time stream: typed `event`s, streamed replies, typing. After a drop it reconnects
 * with `afterSeq` set to the last event seen, so no event is missed or handed out twice; a
 * 1008 close (paused agent, revoked token) or a refused upgrade (401, 403) ends it for good.
 * Events that arrive before the first `event` listener (or `events()`) wait for it: the service
 * replays right after hello, before the code after `await connect()` has run.
 */
export class AgentStream {
  private ws: WebSocketLike | null = null;
  private lastSeq: number | null;
  private readonly listeners: { [K in keyof StreamListeners]: Set<StreamListeners[K]> } = {
    event: new Set(),
    error: new Set(),
    open: new Set(),
    close: new Set(),
  };
  /** Events received while no `event` listener was ever added; `null` once handed out. */
  private early: AgentEvent[] | null = [];
  private readonly replies = new Map<string, ReplyWriter>();
  private readonly outbox: Outbox;
  private finished = false;
  private ready: Promise<void>;
  private markReady!: () => void;
  private failures = 0;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private replyCount = 0;

  constructor(
    private readonly client: StreamEndpoint,
    private readonly options: StreamOptions,
  ) {
    this.lastSeq = options.afterSeq ?? null;
    this.ready = this.waitReady();
    this.outbox = new Outbox((frame) => this.transmit(frame), {
      framesPerMinute: options.framesPerMinute ?? 120,
      deltasPerSecond: options.deltasPerSecond ?? 20,
      deltaDelayMs: options.deltaDelayMs ?? 100,
    });
  }

  /** The seq of the last event received: where a reconnect (or your next run) resumes. */
  get seq(): number | null {
    return this.lastSeq;
  }

  /** Whether the stream has ended for good (closed by you, or refused). */
  get closed(): boolean {
    return this.finished;
  }

  /**
   * Adds a listener; answers a function that removes it. The first `event` listener also gets
   * the events that arrived before it, oldest first, on the next microtask (not inside `on`).
   */
  on<K extends keyof StreamListeners>(type: K, listener: StreamListeners[K]): () => void {
    this.listeners[type].add(listener);
    if (type === "event" && this.early) queueMicrotask(() => this.releaseEarly());
    return () => this.listeners[type].delete(listener);
  }

  /** Events as an async iterator (ends when the stream ends). */
  events(): AsyncIterableIterator<AgentEvent> {
    const queue: AgentEvent[] = [];
    let wake: (() => void) | null = null;
    let ended = false;
    const offEvent = this.on("event", (event) => {
      queue.push(event);
      wake?.();
    });
    // Taken now, not on the next microtask: a stream that already ended still yields them.
    queue.push(...this.takeEarly());
    const offClose = this.on("close", ({ reconnecting }) => {
      if (reconnecting) return;
      ended = true;
      wake?.();
    });
    const stop = () => {
      ended = true;
      offEvent();
      offClose();
      wake?.();
    };
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: async () => {
        for (;;) {
          const event = queue.shift();
          if (event) return { value: event, done: false };
          if (ended || this.finished) {
            stop();
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = null;
        }
      },
      return: async () => {
        stop();
        return { value: undefined, done: true };
      },
    };
  }

  /** Shows (or clears) the typing indicator in a conversation. */
  typing(conversationId: string, typing = true): void {
    this.outbox.push({ type: "typing", conversationId, typing });
  }

  /**
   * Starts a streamed reply; resolves once the service accepted it (`reply.started`), rejects
   * with the refusal (`not_a_contact`, `rate_limited`, …) otherwise. Write to it, then `end()`.
   */
  async streamReply(target: ReplyTarget): Promise<ReplyWriter> {
    if (this.finished)
      throw new SwitchboardError({
        code: "connection_closed",
        message: "The stream is closed",
        status: 0,
      });
    await this.ready;
    if (this.finished)
      throw new SwitchboardError({
        code: "connection_closed",
        message: "The stream is closed",
        status: 0,
      });
    this.replyCount += 1;
    const streamId = `r${this.replyCount}-${Math.random().toString(36).slice(2, 8)}`;
    const writer = new ReplyWriter(streamId, this.outbox, () => this.replies.delete(streamId));
    this.replies.set(streamId, writer);
    const to = typeof target === "string" ? { conversationId: target } : target;
    this.outbox.push({ type: "reply.start", streamId, ...to });
    await writer.started;
    return writer;
  }

  /** Closes the stream for good; open replies are aborted by the service. */
  async close(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.clearTimers();
    const ws = this.ws;
    if (!ws || ws.readyState === 3) {
      this.end(1000, "closed by the client", false);
      return;
    }
    await new Promise<void>((resolve) => {
      ws.addEventListener("close", () => resolve());
      ws.close(1000, "bye");
      setTimeout(resolve, 2000).unref?.();
    });
  }

  /** Opens one connection; resolves on hello, rejects with why it could not. */
  async open(): Promise<void> {
    const { Ctor, headers } = await resolveWebSocket(this.options.WebSocket);
    const query = new URLSearchParams();
    if (this.lastSeq !== null) query.set("afterSeq", String(this.lastSeq));
    if (!headers) query.set("token", this.client.token);
    const url = `${this.client.wsUrl}/ws/agent/v1/stream${query.toString() ? `?${query}` : ""}`;
    const ws = headers
      ? new Ctor(url, { headers: { Authorization: `Bearer agent:${this.client.token}` } })
      : new Ctor(url);
    this.ws = ws;
    const resumedAfter = this.lastSeq;

    await new Promise<void>((resolve, reject) => {
      let settled = false;
      let opened = false;
      const fail = (error: SwitchboardError) => {
        if (settled) return;
        settled = true;
        reject(error);
      };
      onRefusal(ws, fail);
      ws.addEventListener("message", (message: { data: unknown }) => {
        const frame = parseFrame(message.data);
        if (!frame) return;
        if (frame.type === "hello" && !opened) {
          settled = true;
          opened = true;
          this.lastSeq ??= frame.seq;
          resolve();
          this.failures = 0;
          this.startPing();
          this.markReady();
          this.emit("open", { seq: frame.seq, resumedAfter });
          return;
        }
        this.receive(frame);
      });
      ws.addEventListener("close", (event: { code: number; reason: string }) => {
        if (!opened)
          return fail(
            new SwitchboardError({
              code: "network_error",
              message: `The stream closed before hello (${event.code} ${event.reason})`.trim(),
              status: 0,
            }),
          );
        if (this.ws === ws) this.dropped(event.code, event.reason);
      });
      ws.addEventListener("error", (event: { message?: string; error?: unknown }) => {
        fail(
          new SwitchboardError({
            code: "network_error",
            message: `Could not open the stream: ${event.message ?? "connection failed"}`,
            status: 0,
            cause: event.error,
          }),
        );
      });
    });
  }

  private receive(frame: ServerFrame): void {
    switch (frame.type) {
      case "event":
        if (this.lastSeq !== null && frame.event.seq <= this.lastSeq) return;
        this.lastSeq = frame.event.seq;
        if (this.early) {
          // Until the first listener has them, later events queue behind (order is kept).
          this.early.push(frame.event);
          if (this.early.length > MAX_EARLY_EVENTS) this.early.shift();
          return;
        }
        this.emit("event", frame.event);
        return;
      case "pong":
        this.awaitingPong = false;
        return;
      case "reply.started":
        this.replies.get(frame.streamId)?.onStarted(frame.messageId, frame.conversationId);
        return;
      case "reply.ended":
        this.replies.get(frame.streamId)?.onEnded(frame.message);
        return;
      case "error": {
        const error = errorFromBody({ error: frame.error }, errorStatus[frame.error.code] ?? 0, {
          streamId: frame.streamId,
        });
        const reply = frame.streamId ? this.replies.get(frame.streamId) : undefined;
        if (reply && !NON_FATAL.has(error.code)) reply.onFailed(error);
        else this.emit("error", error);
        return;
      }
    }
  }

  private awaitingPong = false;

  private startPing(): void {
    const every = this.options.pingIntervalMs ?? 25_000;
    if (every <= 0) return;
    this.awaitingPong = false;
    this.pingTimer = setInterval(() => {
      if (this.awaitingPong) {
        // No pong for a whole interval: the connection is dead though no close arrived.
        const ws = this.ws as (WebSocketLike & { terminate?: () => void }) | null;
        if (ws?.terminate) ws.terminate();
        else ws?.close(4000, "no pong");
        return;
      }
      this.awaitingPong = true;
      this.outbox.push({ type: "ping" });
    }, every);
    this.pingTimer.unref?.();
  }

  /** The connection dropped: fail what was in flight, then end or reconnect. */
  private dropped(code: number, reason: string): void {
    this.clearTimers();
    this.outbox.clear();
    this.failReplies(`The stream closed (${code}) with the reply open`);
    this.ready = this.waitReady();
    if (this.finished) {
      this.end(code, reason, false);
      return;
    }
    if (code === 1008) {
      // Paused, suspended, revoked: the reason is the API's error code.
      this.emit(
        "error",
        new SwitchboardError({
          code: reason as SwitchboardError["code"],
          message: `The service closed the stream: ${reason}`,
          status: errorStatus[reason as keyof typeof errorStatus] ?? 0,
        }),
      );
    }
    if (code === 1008 || this.options.reconnect === false) {
      this.finished = true;
      this.end(code, reason, false);
      return;
    }
    this.emit("close", { code, reason, reconnecting: true });
    this.scheduleReconnect();
  }

  private scheduleReconnect(retryAfterSeconds?: number): void {
    this.failures += 1;
    const base = this.options.reconnectDelayMs ?? 500;
    const cap = this.options.maxReconnectDelayMs ?? 30_000;
    const backoff = Math.min(cap, base * 2 ** (this.failures - 1)) * (0.75 + Math.random() / 2);
    const delay = Math.max(backoff, (retryAfterSeconds ?? 0) * 1000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.finished) return;
      this.open().catch((error: SwitchboardError) => {
        if (this.finished) return;
        if (FATAL_STATUS.has(error.status)) {
          this.emit("error", error);
          this.finished = true;
          this.end(0, error.code, false);
          return;
        }
        this.scheduleReconnect(error.retryAfterSeconds);
      });
    }, delay);
  }

  private end(code: number, reason: string, reconnecting: boolean): void {
    this.failReplies("The stream is closed");
    this.markReady(); // releases streamReply calls waiting for a connection: they see it closed
    this.emit("close", { code, reason, reconnecting });
  }

  private failReplies(message: string): void {
    for (const reply of [...this.replies.values()])
      reply.onFailed(new SwitchboardError({ code: "connection_closed", message, status: 0 }));
  }

  private clearTimers(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.pingTimer = null;
    this.reconnectTimer = null;
  }

  private transmit(frame: ClientFrame): boolean {
    const ws = this.ws;
    if (ws?.readyState !== 1) return false;
    ws.send(JSON.stringify(frame));
    return true;
  }

  /** The early events, to the listeners there are now (none left: they keep waiting). */
  private releaseEarly(): void {
    if (this.listeners.event.size === 0) return;
    for (const event of this.takeEarly()) this.emit("event", event);
  }

  private takeEarly(): AgentEvent[] {
    const early = this.early ?? [];
    this.early = null;
    return early;
  }

  private waitReady(): Promise<void> {
    return new Promise((resolve) => {
      this.markReady = resolve;
    });
  }

  private emit<K extends keyof StreamListeners>(
    type: K,
    ...args: Parameters<StreamListeners[K]>
  ): void {
    for (const listener of [...this.listeners[type]])
      (listener as (...a: Parameters<StreamListeners[K]>) => void)(...args);
  }
}

/** Opens a stream (the client's `connect()`): the first connection must succeed. */
export async function openStream(
  client: StreamEndpoint,
  options: StreamOptions,
): Promise<AgentStream> {
  const stream = new AgentStream(client, options);
  await stream.open();
  return stream;
}
