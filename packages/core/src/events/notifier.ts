import { describeError, type Executor, isDatabaseUnavailable, type Sql } from "@switchboard/db";
import { type SQL, sql } from "drizzle-orm";
import { type Clock, systemClock } from "../clock";
import { log } from "../log";

/** The one Postgres channel every process listens on; payloads are topics. */
export const NOTIFY_CHANNEL = "switchboard";

/**
 * What a wake-up is about: an agent's event log, a user's view of the apps, or an agent's
 * standing (`control:`: paused, token revoked, owner suspended, blocked or removed by a person).
 * A user's topic may name what changed after a slash (`user:<id>/chat:<conversationId>`, see
 * `userTopic`); subscribers of `user:<id>` get every one of them.
 */
export type Topic =
  | `agent:${string}`
  | `user:${string}`
  | `control:${string}`
  | typeof DRAINS_TOPIC
  | `${typeof DRAINS_TOPIC}/${string}`;

/** Worker processes' webhook drains (decision 0055): `webhook-drains/<agentId>` names the agent. */
export const DRAINS_TOPIC = "webhook-drains";

/** The wake-ups of these agents' webhook drains. */
export function drainTopics(agentIds: Iterable<string>): Topic[] {
  return [...new Set(agentIds)].map((agentId) => `${DRAINS_TOPIC}/${agentId}` as const);
}

/**
 * What changed in a person's view of the apps, named in their wake-up so an open console tab
 * re-reads only the views of it (decision 0043). Ids only, never content: the re-read is still
 * where access is checked. A wake-up that names nothing means "anything may have changed".
 */
export type PersonChange =
  /** A chat: messages, cards and their decisions, reactions, typing, the agent's read mark. */
  | `chat:${string}`
  /** The cards waiting on the person: one proposed, decided or expired (the waiting list, its count). */
  | "cards"
  /** The person's own read mark in a chat: only unread counts change. */
  | `read:${string}`
  /** The person's chats and contacts as a whole: added, removed, blocked, grants, settings. */
  | "chats"
  /** An email thread: a new email, or the person's read mark. */
  | `thread:${string}`
  /** The person's tasks, reminders, events and notes, and their decisions on cards. */
  | "records"
  | "feed"
  | "calls"
  /** The person's self chat (notes from their own developer keys). */
  | "self"
  /** An agent's profile or standing (paused, resumed): for its owner and its contacts. */
  | `agent:${string}`
  /** An owned agent's counts: messages sent and received, proposals, refused sends. */
  | `activity:${string}`
  /** An owned agent's webhook: a delivery's outcome, its state, the alerts about it. */
  | `webhook:${string}`;

/** The wake-up topic of a person's open apps, naming what changed when the caller knows. */
export function userTopic(userId: string, change?: PersonChange): Topic {
  return change ? `user:${userId}/${change}` : `user:${userId}`;
}

/** Calls a subscriber with what changed, when the notification named it. */
type Wake = (change?: string) => void;

/**
 * How long a process remembers when it last heard each topic, for `watch`'s `since`: long
 * enough for a page to get from its server render to its live subscription.
 */
const REMEMBER_HEARD_MS = 60_000;
/** How far two processes' clocks may disagree; `since` is moved back by it. */
const CLOCK_SKEW_MS = 1000;

/**
 * Cross-process wake-ups: each process keeps one LISTEN connection and fans notifications out
 * to in-memory subscribers. A notification only says "look again" (at most naming what changed);
 * subscribers re-read the database, so a notification lost during a reconnect costs latency,
 * never data.
 */
export class Notifier {
  private readonly subscribers = new Map<string, Set<Wake>>();
  private listening: Promise<unknown> | undefined;
  private attempt = 0;
  /** When the LISTEN last (re)started: this process has heard every notification since. */
  private listeningSince: number | undefined;
  /**
   * Topic → when this process last heard it, and when it last heard each change named on it
   * ("" for a notification that named none); oldest topic first, forgotten after a while.
   */
  private readonly lastHeard = new Map<string, { at: number; changes: Map<string, number> }>();

  constructor(
    private readonly sql: Sql,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Calls `onWake` for every notification on `topic` (with what changed, when named) until the
   * returned function is called.
   */
  async subscribe(topic: Topic, onWake: Wake): Promise<() => void> {
    // One LISTEN for the process; once it holds, postgres.js re-listens by itself after a lost
    // connection. A first LISTEN that failed (database briefly unreachable) is forgotten, so the
    // next subscriber tries again instead of every later one failing too. postgres.js keeps the
    // failed attempt's callback and may revive it later: only the current attempt's dispatches.
    const attempt = this.attempt;
    this.listening ??= this.sql
      .listen(
        NOTIFY_CHANNEL,
        (payload) => {
          if (attempt === this.attempt) this.dispatch(payload);
        },
        () => {
          if (attempt !== this.attempt) return;
          // Listening again after a lost connection: what was notified meanwhile went unheard,
          // so every view here re-reads (a console tab re-reads only when woken).
          if (this.listeningSince !== undefined) this.wakeEveryone();
          this.listeningSince = this.clock.now().getTime();
        },
      )
      .catch((error: unknown) => {
        this.attempt++;
        this.listening = undefined;
        throw error;
      });
    await this.listening;
    const set = this.subscribers.get(topic) ?? new Set();
    this.subscribers.set(topic, set);
    set.add(onWake);
    return () => {
      set.delete(onWake);
      if (set.size === 0) this.subscribers.delete(topic);
    };
  }

  /**
   * The wake-ups on `topic` as an async iterable, for live views: yields once at the start (so
   * a view that (re)connects re-reads) and then once per burst of notifications, coalescing
   * those that arrive while the consumer is busy. Each yield is what changed in the burst, or
   * null for "anything may have changed" (the start, or a notification that named nothing).
   * Ends when `signal` aborts.
   *
   * `since` (ms since the epoch) is when the view's data was read, for a page that read it on
   * the server before it subscribed: when this process has heard everything on `topic` since
   * then, the start yields only what was named since (the page's own read mark, say), and
   * nothing at all when nothing was notified.
   */
  async *watch(topic: Topic, signal: AbortSignal, since?: number): AsyncGenerator<string[] | null> {
    // What the next yield carries: "all", the changes named so far, or nothing pending.
    let pending: "all" | Set<string> | null = "all";
    let wakeConsumer: (() => void) | undefined;
    const onWake: Wake = (change) => {
      if (change === undefined) pending = "all";
      else if (pending === null) pending = new Set([change]);
      else if (pending !== "all") pending.add(change);
      wakeConsumer?.();
    };
    const unsubscribe = await this.subscribe(topic, onWake);
    // Subscribed first: a notification from here on wakes the view, one before is in lastHeard.
    if (since !== undefined) pending = this.heardSince(topic, since);
    const onAbort = () => wakeConsumer?.();
    signal.addEventListener("abort", onAbort);
    try {
      while (!signal.aborted) {
        if (!pending)
          await new Promise<void>((resolve) => {
            wakeConsumer = resolve;
          });
        wakeConsumer = undefined;
        if (signal.aborted) return;
        const changes: string[] | null = pending === "all" ? null : [...(pending ?? [])];
        pending = null;
        yield changes;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      unsubscribe();
    }
  }

  /** Wakes every subscriber with "anything may have changed". */
  private wakeEveryone(): void {
    for (const wakes of this.subscribers.values()) for (const wake of wakes) wake(undefined);
  }

  private dispatch(payload: string): void {
    const now = this.clock.now().getTime();
    for (const entry of payload.split(",")) {
      const slash = entry.indexOf("/");
      const topic = slash < 0 ? entry : entry.slice(0, slash);
      const change = slash < 0 ? undefined : entry.slice(slash + 1);
      const heard = this.lastHeard.get(topic) ?? { at: now, changes: new Map() };
      heard.at = now;
      // Oldest change first, forgotten after a while too: a topic that never goes quiet (a busy
      // person) would otherwise keep every change it ever named.
      heard.changes.delete(change ?? "");
      heard.changes.set(change ?? "", now);
      for (const [named, at] of heard.changes) {
        if (at > now - REMEMBER_HEARD_MS) break;
        heard.changes.delete(named);
      }
      this.lastHeard.delete(topic);
      this.lastHeard.set(topic, heard);
      for (const wake of this.subscribers.get(topic) ?? []) wake(change);
    }
    for (const [topic, { at }] of this.lastHeard) {
      if (at > now - REMEMBER_HEARD_MS) break;
      this.lastHeard.delete(topic);
    }
  }

  /**
   * What was notified on `topic` since `since`: nothing (null), the changes named, or "all" when
   * a notification named nothing or this process cannot be sure (it was not listening all along,
   * or no longer remembers that far back). Clocks of the process that read the data and of this
   * one may disagree a little, so `since` is taken as a little earlier.
   */
  private heardSince(topic: Topic, since: number): "all" | Set<string> | null {
    const from = since - CLOCK_SKEW_MS;
    const now = this.clock.now().getTime();
    if (this.listeningSince === undefined || this.listeningSince > from) return "all";
    if (from <= now - REMEMBER_HEARD_MS) return "all";
    const heard = this.lastHeard.get(topic);
    if (!heard || heard.at < from) return null;
    const changes = new Set<string>();
    for (const [change, at] of heard.changes) {
      if (at < from) continue;
      if (change === "") return "all";
      changes.add(change);
    }
    return changes;
  }
}

/** Postgres refuses a NOTIFY payload of 8000 bytes or more; topics are ASCII. */
const MAX_NOTIFY_PAYLOAD = 7900;

/**
 * Wakes `topics` once the transaction that made them true has committed: a send's wake-ups
 * (decision 0077). Postgres serialises the commits of transactions that issued a NOTIFY (one
 * lock, held while the notification queue is written), which cost sends two thirds of their
 * throughput at 50 connections; issued here, outside any transaction, they cost none of it.
 *
 * Call it after the commit, never inside the transaction. It returns at once: the process
 * issues one `pg_notify` statement at a time, and the topics committed while one is in flight
 * go out together in the next (coalesced, each topic once). A statement that fails because
 * Postgres is out of reach is tried again for about 20 s. A wake-up lost to a crash between
 * the commit and the statement, or to a longer outage, delays its listeners to their own
 * re-read at most: a parked long-poll reads again when its wait ends, a stream at each
 * heartbeat, the webhook drains at each sweep. Nothing is lost: the rows are committed.
 *
 * Wake-ups for people's open apps alone (`user:` topics) wait up to `peopleWindowMs` for others
 * to join them when no statement is in flight; any other topic (an agent's readers, the drains,
 * a control topic) starts the statement at the next turn of the event loop, taking the waiting
 * ones along. One agent sending in turn otherwise paid a statement a send, and every process
 * listening paid for each notification: ~0.1 ms of CPU a send across them (issue 41).
 */
export function wakeAfterCommit(
  db: Sql,
  topics: Iterable<Topic>,
  peopleWindowMs = PEOPLE_WAKE_WINDOW_MS,
): Promise<void> {
  let wakes = afterCommit.get(db);
  if (!wakes) {
    wakes = new CoalescedWakes(db);
    afterCommit.set(db, wakes);
  }
  return wakes.add(topics, peopleWindowMs);
}

/**
 * How long a wake-up for people's apps may wait for others to join it: a person sees a change
 * this much later at most, well under what a screen shows as a delay.
 */
const PEOPLE_WAKE_WINDOW_MS = 20;

/** A wake-up for a person's open console, which a few milliseconds more cannot hurt. */
const forPeople = (topic: Topic) => topic.startsWith("user:");

/**
 * Sends the after-commit wake-ups still waiting, without the rest of a people's window, and
 * resolves once they went out: a process closing its pool (a CLI command, a stopping service)
 * calls it first, or they would be dropped with the pool.
 */
export function sendPendingWakes(db: Sql): Promise<void> {
  return afterCommit.get(db)?.sendNow() ?? Promise.resolve();
}

/** Each process's (each postgres.js instance's) after-commit wake-ups. */
const afterCommit = new WeakMap<Sql, CoalescedWakes>();

/** The topics waiting for the next `pg_notify` statement, and the one in flight. */
class CoalescedWakes {
  private pending = new Set<Topic>();
  private next: Promise<void> | undefined;
  private inFlight: Promise<void> | undefined;
  /** Starts the next statement at the next turn: set while it waits out the people's window. */
  private hurry: (() => void) | undefined;

  constructor(private readonly sql: Sql) {}

  /**
   * Resolves once `topics` went out (or their statement failed: it never rejects); with none,
   * once every topic added so far did.
   */
  add(topics: Iterable<Topic>, peopleWindowMs: number): Promise<void> {
    const before = this.pending.size;
    let urgent = false;
    for (const topic of topics) {
      this.pending.add(topic);
      urgent ||= !forPeople(topic);
    }
    if (this.pending.size === before) return this.next ?? this.inFlight ?? Promise.resolve();
    // Idle, the statement waits for the turn of the event loop (or, for people's apps alone, the
    // window): every commit answered meanwhile joins it, and the sends it wakes for have answered
    // their callers first. Behind a statement in flight, it goes out as that one is answered.
    this.next ??= (this.inFlight ?? this.idle(peopleWindowMs)).then(() => this.flush());
    if (urgent) this.hurry?.();
    return this.next;
  }

  /** Resolves once every topic added so far went out, the people's window cut short. */
  sendNow(): Promise<void> {
    this.hurry?.();
    return this.next ?? this.inFlight ?? Promise.resolve();
  }

  private idle(peopleWindowMs: number): Promise<void> {
    return new Promise((resolve) => {
      const window = setTimeout(() => this.hurry?.(), peopleWindowMs);
      this.hurry = () => {
        this.hurry = undefined;
        clearTimeout(window);
        setImmediate(resolve);
      };
    });
  }

  private async flush(): Promise<void> {
    const topics = this.pending;
    this.pending = new Set();
    this.next = undefined;
    this.inFlight = this.notify(topics);
    try {
      await this.inFlight;
    } finally {
      this.inFlight = undefined;
    }
  }

  /**
   * Issues the statement; while Postgres is out of reach (a restart, a failover) it tries again
   * after each of `WAKE_RETRY_MS`, so a console tab, which re-reads only when woken, is not left
   * stale by a blip. Later wake-ups wait meanwhile and go out together after it.
   */
  private async notify(topics: Set<Topic>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this
          .sql`select pg_notify(${NOTIFY_CHANNEL}, p) from unnest(${notifyPayloads(topics)}::text[]) as p`;
        return;
      } catch (error) {
        // This process closed its pool (it is stopping): its listeners stop with it.
        if ((error as { code?: unknown }).code === "CONNECTION_ENDED") return;
        const wait = WAKE_RETRY_MS[attempt];
        if (wait === undefined || !isDatabaseUnavailable(error)) {
          log.warn(
            { component: "wake-ups", err: describeError(error) },
            "after-commit wake-up failed",
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  }
}

/** How long a failed after-commit wake-up waits before each new try (about 20 s in all). */
const WAKE_RETRY_MS = [250, 1000, 4000, 15_000];

/**
 * Queues wake-ups inside the caller's transaction; Postgres delivers them at commit. Many topics
 * (a feed post wakes everyone who follows the agent) go in as many notifications as fit.
 */
export async function notifyTopics(db: Executor, topics: Iterable<Topic>): Promise<void> {
  const select = notifySelect(topics);
  if (select) await db.execute(select);
}

/** The `select pg_notify(…)` that queues `topics`, or null for none. */
function notifySelect(topics: Iterable<Topic>): SQL | null {
  const payloads = notifyPayloads(topics);
  if (payloads.length === 0) return null;
  const list = sql.join(
    payloads.map((payload) => sql`${payload}`),
    sql`, `,
  );
  return sql`select pg_notify(${NOTIFY_CHANNEL}, p) from unnest(array[${list}]::text[]) as p`;
}

/**
 * `topics` packed into as few NOTIFY payloads as fit (comma-joined, each under Postgres's
 * limit): for `notifySelect`, `wakeAfterCommit`, and for a postgres.js statement written out by hand, which passes
 * them as one `text[]` to `select pg_notify(NOTIFY_CHANNEL, p) from unnest(…) p`.
 */
export function notifyPayloads(topics: Iterable<Topic>): string[] {
  const payloads: string[] = [];
  let current = "";
  for (const topic of new Set(topics)) {
    if (current && current.length + 1 + topic.length > MAX_NOTIFY_PAYLOAD) {
      payloads.push(current);
      current = "";
    }
    current = current ? `${current},${topic}` : topic;
  }
  if (current) payloads.push(current);
  return payloads;
}
