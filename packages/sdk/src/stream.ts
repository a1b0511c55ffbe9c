import type { AgentEvent, AgentMessage, ClientFrame, ServerFrame } from "@switchboard/contract";
import { errorFromBody, SwitchboardError } from "./errors";
import { errorStatus } from "./routes";

/** The WHATWG WebSocket surface the stream uses: the global one (Node 22+, browsers) or `ws`. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: each implementation has its own event classes
  addEventListener(type: string, listener: (event: any) => void): void;
}
export type WebSocketConstructor = new (url: string, options?: unknown) => WebSocketLike;

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

/**
 * Client frames, paced to the connection's limits: at most `framesPerMinute` in any 61 s (a
 * sliding window is stricter than the service's fixed minute, with a second of slack for
 * transit) and `deltasPerSecond` deltas in any second. Text written while a delta waits joins
 * it, so a fast writer sends fewer, longer deltas instead of losing any.
 */
class Outbox implements FrameSink {
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

function parseFrame(data: unknown): ServerFrame | null {
  try {
    return JSON.parse(typeof data === "string" ? data : String(data)) as ServerFrame;
  } catch {
    return null;
  }
}

interface NodeWebSocket extends WebSocketLike {
  on(
    event: "unexpected-response",
    listener: (
      request: { destroy(): void },
      response: {
        statusCode?: number;
        headers: Record<string, string | string[] | undefined>;
        on(event: "data", listener: (chunk: Buffer) => void): void;
        on(event: "end", listener: () => void): void;
      },
    ) => void,
  ): void;
}

/** With `ws`, a refused upgrade's status and envelope become the error (the global WebSocket hides them). */
function onRefusal(ws: WebSocketLike, fail: (error: SwitchboardError) => void): void {
  const node = ws as NodeWebSocket;
  if (typeof node.on !== "function") return;
  node.on("unexpected-response", (request, response) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk) => chunks.push(chunk));
    response.on("end", () => {
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // not the envelope
      }
      const retryAfter = response.headers["retry-after"];
      fail(
        errorFromBody(body, response.statusCode ?? 0, {
          retryAfterHeader: typeof retryAfter === "string" ? retryAfter : null,
        }),
      );
      request.destroy();
    });
  });
}

async function resolveWebSocket(
  injected?: WebSocketConstructor,
): Promise<{ Ctor: WebSocketConstructor; headers: boolean }> {
  // `ws` (and classes like it) take options with headers; the WHATWG one only protocols.
  if (injected) return { Ctor: injected, headers: typeof injected.prototype?.on === "function" };
  try {
    const name = "ws"; // not a literal: browser bundlers must not try to bundle it
    const mod = (await import(name)) as { WebSocket?: WebSocketConstructor; default?: unknown };
    const Ctor = mod.WebSocket ?? (mod.default as WebSocketConstructor | undefined);
    if (Ctor) return { Ctor, headers: true };
  } catch {
    // not installed: fall back to the global one
  }
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return { Ctor: global, headers: false };
  throw new TypeError(
    "No WebSocket available: on Node 20 install `ws` (npm install ws) or pass options.WebSocket",
  );
}
