import { randomUUID } from "node:crypto";
import { describeError } from "@switchboard/db";
import type { CoreDeps } from "../deps";
import { DRAINS_TOPIC } from "../events/notifier";
import { heartbeatWorkers } from "../jobs/stale-workers";
import { log } from "../log";
import { metrics } from "../metrics";
import { type DeliveryOutcome, drainWebhook } from "./deliver-webhook";
import {
  agentsWithUnclaimedDeliveries,
  liveDrainHolders,
  releaseDrainLeases,
  releaseDrainLeasesOf,
  takeDrainLease,
} from "./drain-leases";

export interface WebhookDrainsOptions {
  /** How many agents this process drains at once. */
  concurrency: number;
  /** How long one agent's drain runs before it yields to agents waiting behind it. */
  sliceMs: number;
  /** How often the process looks for deliveries no wake-up reached. */
  sweepMs: number;
  /** How long a lease is kept after its agent's last drain, for the agent's next events. */
  lingerMs: number;
  onOutcome?: (outcome: DeliveryOutcome, deliveryId: number) => void;
}

/** Every process's drains hold leases under an id with this prefix. */
const HOLDER_PREFIX = "webhooks-";

/**
 * Where an agent's wake-ups go among the live drains: rendezvous hashing (FNV-1a of the holder
 * and the agent), so every process picks the same one from the same list, and a process joining
 * or leaving moves only its own share of the agents.
 */
function ownerOf(agentId: string, holders: readonly string[]): string | undefined {
  let owner: string | undefined;
  let best = -1;
  for (const holder of holders) {
    let hash = 0x811c9dc5;
    for (const text of [holder, agentId])
      for (let i = 0; i < text.length; i++) {
        hash ^= text.charCodeAt(i);
        hash = Math.imul(hash, 0x01000193) >>> 0;
      }
    if (hash > best) [best, owner] = [hash, holder];
  }
  return owner;
}

/** One agent's drain in this process, and whether it was woken again while running. */
interface Running {
  again: boolean;
  /** It yielded after its slice with deliveries left: back in the queue, lease kept. */
  requeue: boolean;
}

/**
 * A worker process's webhook drains (decision 0055). A commit that writes deliveries notifies
 * `webhook-drains/<agentId>`; every worker hears it, and the one the agent hashes to among the
 * live drains (`ownerOf`) takes the agent's drain lease and delivers its due deliveries in seq
 * order (`drainWebhook`). The lease is kept for `lingerMs` after the agent's last drain, so an
 * agent that gets an event every second or so costs a read, the POST and its settle per event:
 * no job, no lease statement. Up to `concurrency` agents at a time, in the order they were
 * woken; an agent past its slice goes to the back of the line, keeping its lease. A sweep every
 * `sweepMs` (and one at the start) stamps this process alive, refreshes the list of live
 * drains, and wakes agents with due deliveries that no other live process holds: wake-ups lost
 * while a LISTEN reconnected or sent to a worker that died, a dead worker's agents, events
 * committed while no worker ran. A delivery's retry time wakes its agent through a job
 * (`enqueueRetryDrain`). Whoever is woken, the lease decides: two processes never drain one
 * agent at once.
 */
export class WebhookDrains {
  /** Woken agents not running yet, in the order woken. */
  private readonly waiting = new Set<string>();
  private readonly running = new Map<string, Running>();
  /** Agents whose lease this process holds, and since when each is idle (0: draining). */
  private readonly held = new Map<string, number>();
  /** When this process last stamped itself alive (its leases count as its own until stale). */
  private stampedAt = 0;
  /** `letGo`'s statement, while it runs. */
  private lettingGo: Promise<void> | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private lingerer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private idle: (() => void) | undefined;
  /** The id this process holds leases under, stamped alive by each sweep (and its job runner). */
  readonly holder = `${HOLDER_PREFIX}${randomUUID()}`;
  /** The live drains (this one included), as of the last sweep. */
  private holders: string[] = [this.holder];

  constructor(
    private readonly deps: CoreDeps,
    private readonly options: WebhookDrainsOptions,
  ) {}

  /** Listens for wake-ups and sweeps once now, then every `sweepMs`. */
  async start(): Promise<void> {
    this.unsubscribe = await this.deps.notifier.subscribe(DRAINS_TOPIC, (agentId) => {
      if (agentId && ownerOf(agentId, this.holders) === this.holder) this.wake(agentId);
    });
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepMs);
    this.sweeper.unref();
    this.lingerer = setInterval(() => void this.letGo(), this.options.lingerMs / 2);
    this.lingerer.unref();
  }

  /** Drains the agent's webhook here if this process can take its lease. */
  wake(agentId: string): void {
    if (this.stopped) return;
    const running = this.running.get(agentId);
    if (running) running.again = true;
    else this.waiting.add(agentId);
    this.pump();
  }

  /**
   * Stamps this process alive, learns which drains are (stamped within a few sweeps: a worker
   * that died stops getting wake-ups soon, its agents meanwhile being swept), and wakes every
   * agent with due deliveries that nobody alive is draining (or this process).
   */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    const stale = this.deps.config.JOB_LOCK_STALE_S;
    try {
      const stamping = performance.now();
      await heartbeatWorkers(this.deps.db, [this.holder]);
      this.stampedAt = stamping;
      const live = await liveDrainHolders(
        this.deps.sql,
        HOLDER_PREFIX,
        Math.ceil((this.options.sweepMs * 2.5) / 1000),
      );
      this.holders = live.includes(this.holder) ? live : [...live, this.holder];
      const agentIds = await agentsWithUnclaimedDeliveries(
        this.deps.sql,
        this.deps.clock.now(),
        stale,
        this.holder,
      );
      for (const agentId of agentIds) this.wake(agentId);
    } catch (error) {
      log.warn({ component: "webhooks", err: describeError(error) }, "webhook sweep failed");
    }
  }

  /**
   * Lets go of the leases idle for `lingerMs`, in one statement. One another process marked
   * meanwhile (it was woken for the agent) is kept, and its agent drained again: the take that
   * starts that drain clears the mark.
   */
  async letGo(): Promise<void> {
    if (this.lettingGo || this.stopped) return;
    const before = performance.now() - this.options.lingerMs;
    const agentIds = [...this.held]
      .filter(
        ([agentId, since]) =>
          since > 0 && since <= before && !this.waiting.has(agentId) && !this.running.has(agentId),
      )
      .map(([agentId]) => agentId);
    if (agentIds.length === 0) return;
    // Drains wait for this statement: none uses a lease it may be letting go of.
    this.lettingGo = releaseDrainLeasesOf(this.deps.sql, this.holder, agentIds)
      .then((released) => {
        for (const agentId of agentIds) {
          this.held.delete(agentId);
          if (!released.has(agentId)) this.wake(agentId);
        }
      })
      .catch((error: unknown) =>
        log.warn(
          { component: "webhooks", err: describeError(error) },
          "letting go of leases failed",
        ),
      )
      .finally(() => {
        this.lettingGo = undefined;
      });
    await this.lettingGo;
  }

  /**
   * Takes no more wake-ups, lets running drains finish their current attempt and batch, and
   * lets go of every lease: the other workers (or the next start) go on from there.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweeper);
    clearInterval(this.lingerer);
    this.unsubscribe?.();
    this.waiting.clear();
    if (this.running.size > 0)
      await new Promise<void>((resolve) => {
        this.idle = resolve;
      });
    await this.lettingGo;
    await releaseDrainLeases(this.deps.sql, this.holder);
    this.held.clear();
  }

  private pump(): void {
    for (const agentId of this.waiting) {
      if (this.stopped || this.running.size >= this.options.concurrency) return;
      this.waiting.delete(agentId);
      const running: Running = { again: false, requeue: false };
      this.running.set(agentId, running);
      void this.drain(agentId, running)
        .catch((error: unknown) => {
          // The database, most likely. The lease stays this process's: the sweep finds the
          // agent again (its own leases are not excluded) once the database answers.
          this.held.delete(agentId);
          log.warn(
            { component: "webhooks", agentId, err: describeError(error) },
            "webhook drain failed",
          );
        })
        .finally(() => {
          this.running.delete(agentId);
          if (running.requeue && !this.stopped) this.waiting.add(agentId);
          if (this.running.size === 0) this.idle?.();
          this.pump();
        });
    }
  }

  private async drain(agentId: string, running: Running): Promise<void> {
    const { deps, options } = this;
    while (this.lettingGo) await this.lettingGo;
    // Not stamped alive for half the time after which other processes take this one for dead:
    // its leases may be theirs by now, so each is taken again before it is used.
    if (performance.now() - this.stampedAt > (deps.config.JOB_LOCK_STALE_S * 1000) / 2)
      this.held.clear();
    for (;;) {
      if (!this.held.has(agentId)) {
        const taken = await takeDrainLease(
          deps.sql,
          agentId,
          this.holder,
          deps.config.JOB_LOCK_STALE_S,
        );
        metrics.drainTakes.inc({ outcome: taken ? "taken" : "held" });
        if (!taken) return; // Its holder was told to read again.
      }
      this.held.set(agentId, 0);
      running.again = false;
      const { more } = await drainWebhook(deps, agentId, options.sliceMs, options.onOutcome);
      if (more && !this.stopped) {
        if (this.waiting.size === 0) continue;
        running.requeue = true;
        return;
      }
      if (running.again && !this.stopped) continue;
      // Kept for the agent's next events; `letGo` releases it once idle for `lingerMs`.
      this.held.set(agentId, performance.now());
      return;
    }
  }
}
