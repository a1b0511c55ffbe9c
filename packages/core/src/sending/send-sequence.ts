import type { Tx } from "@switchboard/db";
import {
  type AccessNeed,
  type AccessTarget,
  type AgentAccess,
  checkAgentAccess,
} from "../consent/access";
import type { CoreDeps } from "../deps";
import { appendEvents, type NewEvent } from "../events/append-event";
import { type Topic, wakeAfterCommit } from "../events/notifier";
import { chargeSend } from "../limits/charge-send";

/**
 * One agent send on any surface (a message, a proposal card, a streamed reply, an email, a feed
 * post), as the steps `runSend` takes in order. A surface supplies its own steps; the order,
 * the transactions and the charge are the sequence's.
 */
export interface SendSteps<Prepared, Access extends SendAccess, Result> {
  /** The sending agent: the one charged. */
  agentId: string;
  /**
   * What the send counts as: a message (every send), a proposal too (its card is a message), or
   * nothing more (the end of a streamed reply, charged when it started).
   */
  charge: "message" | "proposal" | "none";
  /** 1. The request checked without the database (400s, 503 with no speech engine). */
  prepare(): Prepared;
  /**
   * 2. Consent, read fresh: `checkAgentAccess` toward a person (refused sends are counted there),
   * or `{ recipientId: null }` for a send to nobody in particular (a feed post).
   */
  access(prepared: Prepared): Promise<Access>;
  /**
   * 3. Rules that need the database and must hold together with the charge, run in the charge's
   * transaction just before it (the pending-proposal count, under a lock).
   */
  check?(tx: Tx, prepared: Prepared, access: Access): Promise<void>;
  /**
   * 4. Slow work that must be paid for first (speech synthesis, fetching remote media), run after
   * the charge has committed and outside any transaction. Answers that work, not yet started, or
   * null when there is none (then the charge and the store commit together).
   */
  materialize?(prepared: Prepared, access: Access): (() => Promise<Prepared>) | null;
  /**
   * 5. The send's rows, inside the store transaction; answers its result, events and wake-ups.
   * With no slow work it runs alongside the charge (their statements go out together), so it
   * must change nothing outside the transaction: a refused charge rolls its rows back.
   */
  store(tx: Tx, prepared: Prepared, access: Access): Promise<StoredSend<Result>>;
}

/** Who a send reaches: the person it counts against under the per-recipient limit, if any. */
export interface SendAccess {
  recipientId: string | null;
}

export interface StoredSend<Result> {
  result: Result;
  /** 6. Appended in the store transaction, last (the event log's lock is held to commit). */
  events?: NewEvent[];
  /** 6. Open apps to wake once the send commits (the recipient's console, say). */
  wake?: Topic[];
}

/**
 * Runs one send: prepare → access → charge → materialize → store → events and wake-ups.
 *
 * The charge (per-minute, per-recipient, daily ceilings) comes before any slow work, so a refused
 * or rate-limited send never starts the speech engine or fetches anything. No transaction stays
 * open across that work: when there is some, the charge commits on its own first, and it stands
 * if the work or the store then fails (the work was done; a retry is a new send). With nothing
 * slow to do, the charge and the store share one transaction and a failed store undoes the charge.
 * A send's hot path counts round trips to Postgres (decision 0048): a text message is three, the
 * access check; BEGIN with the charge and the store; COMMIT. Its wake-ups (the recipient's apps,
 * the owner's console, the event readers and webhook drains) are issued after the commit,
 * coalesced with other sends' (`wakeAfterCommit`, decision 0077): a NOTIFY inside the
 * transaction would serialise its commit with every other notifying commit.
 */
export async function runSend<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
): Promise<Result> {
  let prepared = steps.prepare();
  const access = await steps.access(prepared);
  // The wake-ups of the transaction running now: issued once it commits, forgotten if it fails.
  let wakes: Topic[] = [];
  const charge = async (tx: Tx) => {
    if (steps.charge === "none") return;
    const owner = await chargeSend(tx, deps, {
      agentId: steps.agentId,
      recipientId: access.recipientId,
      proposal: steps.charge === "proposal",
    });
    wakes.push(...owner);
  };
  const finish = async (tx: Tx, stored: StoredSend<Result>) => {
    const events = async () => {
      wakes.push(...(stored.wake ?? []));
      await appendEvents(tx, deps.clock.now(), stored.events ?? [], wakes);
    };
    // With an Idempotency-Key, the answer is stored in the send's own transaction, alongside its
    // events (decision 0060): a retry replays it and never sends twice.
    const sealed = deps.idempotentWrite?.seal(tx, stored.result);
    const [done, seal] = await Promise.allSettled([events(), sealed]);
    if (seal.status === "rejected") throw seal.reason;
    if (done.status === "rejected") throw done.reason;
    return stored.result;
  };

  const committed = async <T>(run: (tx: Tx) => Promise<T>): Promise<T> => {
    const result = await deps.db.transaction(async (tx) => {
      wakes = [];
      return run(tx);
    });
    void wakeAfterCommit(deps.sql, wakes);
    return result;
  };

  const work = steps.materialize?.(prepared, access) ?? null;
  if (!work)
    return committed(async (tx) => {
      await steps.check?.(tx, prepared, access);
      // The charge and the store go out together (one round trip): a refused charge throws, and
      // the transaction rolls the stored rows back with the counts.
      const [charged, stored] = await Promise.allSettled([
        charge(tx),
        steps.store(tx, prepared, access),
      ]);
      if (charged.status === "rejected") throw charged.reason;
      if (stored.status === "rejected") throw stored.reason;
      return finish(tx, stored.value);
    });
  await committed(async (tx) => {
    await steps.check?.(tx, prepared, access);
    await charge(tx);
  });
  prepared = await work();
  return committed(async (tx) => finish(tx, await steps.store(tx, prepared, access)));
}

/**
 * Step 2 of a send toward a person: `checkAgentAccess` for an initiating call (a refused send is
 * counted), with the person as the send's recipient.
 */
export async function accessForSend(
  deps: CoreDeps,
  agentId: string,
  target: AccessTarget,
  scope: AccessNeed["scope"],
  need: Pick<AccessNeed, "lastInboundAt"> = {},
): Promise<AgentAccess & SendAccess> {
  const access = await checkAgentAccess(deps, agentId, target, {
    ...need,
    scope,
    initiating: true,
  });
  return { ...access, recipientId: access.person.id };
}
