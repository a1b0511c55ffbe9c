import type { Tx } from "@switchboard/db";
import {
  type AccessNeed,
  type AccessTarget,
  type AgentAccess,
  checkAgentAccess,
  checkAgentAccessIn,
  countRefusedSend,
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
   * A send that may go out in one write (decision 0078): its access check, read inside its
   * transaction (`tx`, refusals not counted: the sequence counts them after the rollback), and
   * how to tell whether two checks name the same target (the fields `store` and the charge use).
   * With `key` naming the target (the agent and its `to` or `conversationId`), the sequence
   * issues the charge and the store alongside the read, for the target the last check of that
   * key answered; if the fresh read refuses the send or names another target, the transaction
   * rolls back. Only for a send with no `check` and no `materialize` work.
   */
  pipeline?: {
    key: string;
    access(tx: Tx, prepared: Prepared): Promise<Access>;
    same(remembered: Access, fresh: Access): boolean;
  };
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
 * access check; BEGIN with the charge and the store; COMMIT. A send with a `pipeline` is two
 * once its target was seen (decision 0078): BEGIN with the access check, the charge and the
 * store, all issued for the target the last check named; COMMIT. Its wake-ups (the recipient's apps,
 * the owner's console, the event readers and webhook drains) are issued after the commit,
 * coalesced with other sends' (`wakeAfterCommit`, decision 0077): a NOTIFY inside the
 * transaction would serialise its commit with every other notifying commit.
 */
export async function runSend<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
): Promise<Result> {
  const prepared = steps.prepare();
  const { pipeline } = steps;
  const targets = pipeline && rememberedTargets(deps);
  const remembered = pipeline && (targets?.get(pipeline.key) as Access | undefined);
  if (pipeline && remembered && !steps.check && !steps.materialize?.(prepared, remembered)) {
    const sent = await pipelinedSend(deps, steps, pipeline, prepared, remembered);
    if (!(sent instanceof Retarget)) return sent.result;
    if (targets) remember(targets, pipeline.key, sent.access); // another target: the classic order
  }
  const access = await steps.access(prepared);
  if (pipeline && targets) remember(targets, pipeline.key, access);
  return sendWith(deps, steps, prepared, access);
}

/** A pipelined send's fresh access check named another target than the one its statements used. */
class Retarget {
  constructor(readonly access: SendAccess) {}
}

/**
 * Per database handle, the target each pipelined send key's last access check answered: who the
 * send reaches (person, chat, the agent's number), never whether it may. Bounded: cleared whole
 * when full (the next send of each key then takes the classic order once).
 */
const targetsByDb = new WeakMap<object, Map<string, SendAccess>>();
const MAX_REMEMBERED_TARGETS = 10_000;
function rememberedTargets(deps: CoreDeps): Map<string, SendAccess> {
  let targets = targetsByDb.get(deps.db);
  if (!targets) {
    targets = new Map();
    targetsByDb.set(deps.db, targets);
  }
  return targets;
}
function remember(targets: Map<string, SendAccess>, key: string, access: SendAccess) {
  if (targets.size >= MAX_REMEMBERED_TARGETS) targets.clear();
  targets.set(key, access);
}

/**
 * The send in one write with BEGIN (decision 0078): the access read first, then the charge and
 * the store for the remembered target, then COMMIT once the read confirmed the target and
 * allowed the send. A refusal rolls everything back and is then counted; another target rolls
 * back and answers `Retarget` (the caller sends in the classic order).
 */
async function pipelinedSend<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
  pipeline: NonNullable<SendSteps<Prepared, Access, Result>["pipeline"]>,
  prepared: Prepared,
  remembered: Access,
): Promise<{ result: Result } | Retarget> {
  let refused: { reason: unknown } | null = null;
  try {
    const result = await sendWith(deps, steps, prepared, remembered, async (tx) => {
      try {
        const fresh = await pipeline.access(tx, prepared);
        if (!pipeline.same(remembered, fresh)) throw new Retarget(fresh);
      } catch (reason) {
        if (!(reason instanceof Retarget)) refused = { reason };
        throw reason;
      }
    });
    return { result };
  } catch (error) {
    if (error instanceof Retarget) return error;
    // The access check's own refusal wins over the charge's or the store's failure it caused.
    const failure = refused as { reason: unknown } | null;
    if (!failure) throw error;
    await countRefusedSend(deps, steps.agentId, failure.reason);
    throw failure.reason;
  }
}

/**
 * Steps 3–6 for a send whose access is known (or, pipelined, being read by `confirm` in the same
 * transaction: its statement goes out first, with BEGIN).
 */
async function sendWith<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
  preparedFirst: Prepared,
  access: Access,
  confirm?: (tx: Tx) => Promise<void>,
): Promise<Result> {
  let prepared = preparedFirst;
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
      const confirmed = confirm?.(tx);
      await steps.check?.(tx, prepared, access);
      // The charge and the store go out together (one round trip): a refused charge throws, and
      // the transaction rolls the stored rows back with the counts.
      const [checked, charged, stored] = await Promise.allSettled([
        confirmed,
        charge(tx),
        steps.store(tx, prepared, access),
      ]);
      if (checked.status === "rejected") throw checked.reason;
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
  tx?: Tx,
): Promise<AgentAccess & SendAccess> {
  const full = { ...need, scope, initiating: true };
  const access = tx
    ? await checkAgentAccessIn(tx, deps, agentId, target, full)
    : await checkAgentAccess(deps, agentId, target, full);
  return { ...access, recipientId: access.person.id };
}
