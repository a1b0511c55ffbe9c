import { randomUUID } from "node:crypto";
import { type Db, schema } from "@switchboard/db";
import { and, count, eq, gt, lte, sql } from "drizzle-orm";
import type { Clock } from "../clock";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";

/**
 * Caps on things an agent holds open at once — parked long-polls, stream connections — kept as
 * lease rows so they hold across processes. A lease ends when released, or by itself soon after
 * its process dies: each process renews all the leases it holds in one statement per kind every
 * LEASE_RENEW_MS, and a lease not renewed for LEASE_TTL_MS no longer counts. (A lease that had to
 * outlive its connection's own timers held a dead worker's slots for minutes: an agent whose
 * worker crashed twice was refused its stream until they ran out.)
 */
const tables = { "long-poll": schema.parkedPolls, stream: schema.streamConnections };
export type LeaseKind = keyof typeof tables;

export const LEASE_RENEW_MS = 5_000;
export const LEASE_TTL_MS = 3 * LEASE_RENEW_MS;

export interface Lease {
  id: string;
  release(): Promise<void>;
}

export async function acquireLease(
  deps: CoreDeps,
  kind: LeaseKind,
  agentId: string,
  max: number,
  what: string,
): Promise<Lease> {
  const table = tables[kind];
  const id = randomUUID();
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    // One acquirer per agent and kind decides at a time, so the count cannot be raced past max.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`${kind}:${agentId}`}))`);
    await tx.delete(table).where(and(eq(table.agentId, agentId), lte(table.expiresAt, now)));
    const [row] = await tx
      .select({ held: count() })
      .from(table)
      .where(and(eq(table.agentId, agentId), gt(table.expiresAt, now)));
    if ((row?.held ?? 0) >= max)
      throw new CoreError("rate_limited", `At most ${max} ${what} may be open at once`, {
        retryAfterSeconds: 1,
      });
    await tx
      .insert(table)
      .values({ id, agentId, expiresAt: new Date(now.getTime() + LEASE_TTL_MS) });
  });
  deps.leases.hold(kind, id);
  return {
    id,
    release: async () => {
      deps.leases.drop(kind, id);
      await deps.db.delete(table).where(eq(table.id, id));
    },
  };
}

/** The leases this process holds, renewed together while it lives. */
export class LeaseKeeper {
  private readonly held: Record<LeaseKind, Set<string>> = {
    "long-poll": new Set(),
    stream: new Set(),
  };
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  hold(kind: LeaseKind, id: string): void {
    this.held[kind].add(id);
    if (!this.timer) {
      this.timer = setInterval(() => void this.renew().catch(() => {}), LEASE_RENEW_MS);
      this.timer.unref();
    }
  }

  drop(kind: LeaseKind, id: string): void {
    this.held[kind].delete(id);
  }

  /**
   * Extends every held lease by LEASE_TTL_MS. (Rows only updated, never re-inserted: a lease
   * released meanwhile stays released. One that expired while the database was out of reach
   * for longer than the TTL stops counting; the cap is then lenient until it ends.)
   */
  async renew(): Promise<void> {
    const expiresAt = new Date(this.clock.now().getTime() + LEASE_TTL_MS);
    for (const kind of Object.keys(tables) as LeaseKind[]) {
      const ids = [...this.held[kind].keys()];
      if (ids.length === 0) continue;
      const table = tables[kind];
      // One array parameter, not `in ($1, …, $n)`: one statement text whatever the count, so
      // the connections do not prepare and keep a statement per number of leases held.
      await this.db
        .update(table)
        .set({ expiresAt })
        .where(sql`${table.id} = any(string_to_array(${ids.join(",")}, ','))`);
    }
  }

  /** Stops renewing (the process is ending; its leases are released or run out). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
