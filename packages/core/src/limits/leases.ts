import { randomUUID } from "node:crypto";
import { schema } from "@switchboard/db";
import { and, count, eq, gt, lte, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";

/**
 * Caps on things an agent holds open at once — parked long-polls, stream connections — kept as
 * lease rows so they hold across processes. A lease ends when released, or by itself at
 * `expiresAt` if its process dies; holders that last renew it.
 */
const tables = { "long-poll": schema.parkedPolls, stream: schema.streamConnections };
export type LeaseKind = keyof typeof tables;

export interface Lease {
  id: string;
  renew(ttlMs: number): Promise<void>;
  release(): Promise<void>;
}

export async function acquireLease(
  deps: CoreDeps,
  kind: LeaseKind,
  agentId: string,
  max: number,
  ttlMs: number,
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
    await tx.insert(table).values({ id, agentId, expiresAt: new Date(now.getTime() + ttlMs) });
  });
  return {
    id,
    renew: async (renewMs) => {
      await deps.db
        .update(table)
        .set({ expiresAt: new Date(deps.clock.now().getTime() + renewMs) })
        .where(eq(table.id, id));
    },
    release: async () => {
      await deps.db.delete(table).where(eq(table.id, id));
    },
  };
}
