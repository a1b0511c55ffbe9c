import type { Sql, Tx } from "@switchboard/db";
import type { PendingQuery, Row } from "postgres";
import { BoundedMap } from "../bounded-map";
import {
  type AccessNeed,
  type AccessTarget,
  type AgentAccess,
  countRefusedSend,
  decideOnStanding,
  readSendStanding,
  type SendStanding,
  standingUnchanged,
} from "../consent/access";
import type { CoreDeps } from "../deps";
import { appendEvents, type NewEvent } from "../events/append-event";
import { type Topic, wakeAfterCommit } from "../events/notifier";
import { chargeParts, chargeSend, ownerWake } from "../limits/charge-send";

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
   * A send that may go out as one statement once its target was seen (decision 0083). `key`
   * names the target (the agent and its `to` or `conversationId`); the sequence remembers the
   * standing the last access check of that key decided on (`SendAccess.standing`). A later
   * send decides `again` on it at its own time, and when that allows it and `store` can build
   * its rows at once, the access guard, the charge and the store go out as one statement that
   * commits on its own. If the standing read then differs, or a limit or a ceiling is at its
   * edge, the statement changes nothing and the send is made in the classic order, which
   * decides, counts and answers every refusal. Only for a send with no `check`, no
   * `materialize` work, no events and no Idempotency-Key.
   */
  repeat?: {
    key: string;
    again(standing: SendStanding): Access;
    /** The rows as the parts of a statement (`StatementStore`), or null when they need more. */
    store(pg: Sql, prepared: Prepared, access: Access): StatementStore<Result> | null;
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
  /** What a send toward a person was decided on, for a repeat send (`accessForSend`). */
  standing?: SendStanding;
}

/**
 * A send's rows as the parts of one statement, built at once (no awaits, so nothing runs
 * outside it): CTEs whose last one is `stored`, returning one row and, read, running them all
 * (`messageInsertParts`); and the result and wake-ups from that row.
 */
export interface StatementStore<Result> {
  ctes: PendingQuery<Row[]>;
  stored(row: Row): Omit<StoredSend<Result>, "events">;
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
 * access check; BEGIN with the charge and the store; COMMIT. A send with a `repeat` is one
 * statement once its target was seen (decision 0083), which falls back to the classic order for
 * anything at an edge. Its wake-ups (the recipient's apps, the owner's console, the event
 * readers and webhook drains) are issued after the commit, coalesced with other sends'
 * (`wakeAfterCommit`, decision 0077): a NOTIFY inside the transaction would serialise its commit
 * with every other notifying commit.
 */
export async function runSend<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
): Promise<Result> {
  const prepared = steps.prepare();
  const { repeat } = steps;
  const standings = repeat && rememberedStandings(deps);
  const remembered = repeat && standings?.get(repeat.key);
  if (repeat && remembered) {
    const sent = await sendInOneStatement(deps, steps, repeat, prepared, remembered);
    if (sent) return sent.result;
  }
  if (deps.admitInSend) throw new AdmitFirst();
  const access = await steps.access(prepared);
  if (repeat && standings && access.standing) standings.set(repeat.key, access.standing);
  return sendWith(deps, steps, prepared, access);
}

/**
 * Per database handle, the standing each repeat key's last access check decided on. Bounded (a
 * key forgotten takes the classic order once on its next send).
 */
const standingsByDb = new WeakMap<object, Map<string, SendStanding>>();
const MAX_REMEMBERED_STANDINGS = 10_000;
function rememberedStandings(deps: CoreDeps): Map<string, SendStanding> {
  let standings = standingsByDb.get(deps.db);
  if (!standings) {
    standings = new BoundedMap(MAX_REMEMBERED_STANDINGS);
    standingsByDb.set(deps.db, standings);
  }
  return standings;
}

/**
 * A send that was to let its call in (`CoreDeps.admitInSend`) could not go out as one statement:
 * nothing was changed, and the call is to be let in the plain way and made again.
 */
export class AdmitFirst extends Error {
  constructor() {
    super("the call is to be let in before its send");
  }
}

/** The SQLSTATE `switchboard_expect` raises (drizzle/0029_send-guard.sql). */
const GUARD_REFUSED = "SB001";

/**
 * A repeat send as one statement (decision 0083): consent decided again on the remembered
 * standing at this send's time, then the charge and the store, guarded by the standing read
 * now being the remembered one and by every count being within its limit. Answers null, having
 * changed nothing, when the send must take the classic order instead.
 */
async function sendInOneStatement<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
  repeat: NonNullable<SendSteps<Prepared, Access, Result>["repeat"]>,
  prepared: Prepared,
  standing: SendStanding,
): Promise<{ result: Result } | null> {
  if (steps.charge === "none" || steps.check || deps.idempotentWrite) return null;
  let access: Access;
  try {
    access = repeat.again(standing);
  } catch {
    return null; // refused at this send's time: the classic order reads, refuses and counts
  }
  if (steps.materialize?.(prepared, access)) return null;
  const pg = deps.sql;
  const store = repeat.store(pg, prepared, access);
  if (!store) return null;
  const charge = chargeParts(
    pg,
    deps,
    {
      agentId: steps.agentId,
      recipientId: access.recipientId,
      proposal: steps.charge === "proposal",
    },
    deps.clock.now(),
  );
  // The call's admission too, when the send is to let it in: one round trip for the whole call.
  const admission = deps.admitInSend?.parts(pg);
  let row: Row | undefined;
  try {
    [row] = await pg`with ${admission ? pg`${admission.ctes}, ` : pg``}${charge.ctes}, ${store.ctes}
      select ${admission ? pg`switchboard_expect(${admission.admitted}, 'not let in') and ` : pg``}
        switchboard_expect(${standingUnchanged(pg, standing)}, 'standing changed')
        and switchboard_expect(${charge.withinLimits}, 'a limit reached') as sent,
        ${admission ? admission.requestCount : pg`null::int`} as request_count,
        ${charge.owner} as owner_id, stored.*
      from stored`;
  } catch (error) {
    if ((error as { code?: unknown }).code === GUARD_REFUSED) return null;
    throw error;
  }
  if (!row) throw new Error("a send's statement returned nothing");
  deps.admitInSend?.letIn(Number(row.request_count));
  const stored = store.stored(row);
  void wakeAfterCommit(deps.sql, [
    ...ownerWake(steps.agentId, row.owner_id),
    ...(stored.wake ?? []),
  ]);
  return { result: stored.result };
}

/** Steps 3–6 for a send whose access is known. */
async function sendWith<Prepared, Access extends SendAccess, Result>(
  deps: CoreDeps,
  steps: SendSteps<Prepared, Access, Result>,
  preparedFirst: Prepared,
  access: Access,
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
 * Step 2 of a send toward a person: `checkAgentAccess`'s read and decision for an initiating call
 * (a refused send is counted), with the person as the send's recipient and the standing it was
 * decided on (for a repeat send).
 */
export async function accessForSend(
  deps: CoreDeps,
  agentId: string,
  target: Pick<AccessTarget, "to" | "conversationId">,
  scope: AccessNeed["scope"],
  need: Pick<AccessNeed, "lastInboundAt"> = {},
): Promise<AgentAccess & SendAccess> {
  try {
    return accessAgain(deps, await readSendStanding(deps.sql, agentId, target), scope, need);
  } catch (error) {
    await countRefusedSend(deps, agentId, error);
    throw error;
  }
}

/** `accessForSend`'s decision again, on a standing it answered before, at the clock's time now. */
export function accessAgain(
  deps: CoreDeps,
  standing: SendStanding,
  scope: AccessNeed["scope"],
  need: Pick<AccessNeed, "lastInboundAt"> = {},
): AgentAccess & SendAccess {
  const access = decideOnStanding(deps, { ...need, scope, initiating: true }, standing);
  return { ...access, recipientId: access.person.id, standing };
}
