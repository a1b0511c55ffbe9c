import { type Db, schema } from "@switchboard/db";
import { and, asc, eq, lte, type SQL, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { currentScopes, standingJoins } from "../events/event-visibility";
import { preparedQuery } from "../prepared-query";
import { GroupedStatements } from "./grouped-statements";

const { agentContacts, agents, events, users, webhookDeliveries, webhooks } = schema;

/**
 * Deliveries with what an attempt needs: the delivery, its webhook, the stored event and the
 * person's grant. The event is found by its id and its time: a delivery is written with its
 * event, its `created_at` being the event's `ts` (append-event.ts), so Postgres reads the one
 * partition of the log that holds it (decision 0047) instead of probing each partition's index.
 */
function deliveriesWhere(db: Db, where: SQL | undefined) {
  return db
    .select({
      delivery: webhookDeliveries,
      webhook: webhooks,
      stored: events,
      scopes: currentScopes,
      ownerId: agents.ownerId,
    })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.agentId, webhookDeliveries.agentId))
    .innerJoin(agents, eq(agents.id, webhookDeliveries.agentId))
    .innerJoin(
      events,
      and(eq(events.id, webhookDeliveries.eventId), eq(events.ts, webhookDeliveries.createdAt)),
    )
    .leftJoin(agentContacts, standingJoins.contact)
    .leftJoin(users, standingJoins.person)
    .where(where)
    .orderBy(asc(webhookDeliveries.eventSeq));
}

/** How many due deliveries one drain reads at a time. */
export const DRAIN_BATCH = 50;

/**
 * A drain's read (built once, decision 0033): the agent's due pending deliveries in seq order,
 * but for those this drain could not record (`unrecorded`, a bigint array, maybe empty).
 */
const dueOfOneAgent = preparedQuery((db) =>
  deliveriesWhere(
    db,
    and(
      eq(webhookDeliveries.agentId, sql.placeholder("agentId")),
      // A literal, not a parameter: the generic plan then uses the index of pending deliveries.
      sql`${webhookDeliveries.status} = 'pending'`,
      lte(webhookDeliveries.nextAttemptAt, sql.placeholder("now")),
      sql`${webhookDeliveries.id} <> all(${sql.placeholder("unrecorded")}::bigint[])`,
    ),
  )
    .limit(DRAIN_BATCH)
    .prepare("webhook_due_deliveries"),
);

/**
 * The same read for several agents at once: each agent's first DRAIN_BATCH due deliveries (a
 * lateral read per agent, over the index of pending deliveries), all in seq order.
 */
const dueOfAgents = preparedQuery((db) =>
  deliveriesWhere(
    db,
    sql`${webhookDeliveries.id} in (
      select due.id from unnest(${sql.placeholder("agentIds")}::text[]) as woken(agent_id)
      cross join lateral (
        select d.id from webhook_deliveries d
        where d.agent_id = woken.agent_id and d.status = 'pending'
          and d.next_attempt_at <= ${sql.placeholder("now")}
          and d.id <> all(${sql.placeholder("unrecorded")}::bigint[])
        order by d.event_seq
        limit ${sql.raw(String(DRAIN_BATCH))}
      ) due)`,
  ).prepare("webhook_due_deliveries_of_agents"),
);

const byId = preparedQuery((db) =>
  deliveriesWhere(db, eq(webhookDeliveries.id, sql.placeholder("id"))).prepare(
    "webhook_delivery_by_id",
  ),
);

export type LoadedDelivery = Awaited<ReturnType<ReturnType<typeof byId>["execute"]>>[number];

/** One delivery with what its attempt needs, by its id. */
export async function deliveryById(
  deps: CoreDeps,
  id: number,
): Promise<LoadedDelivery | undefined> {
  const [found] = await byId(deps.db).execute({ id });
  return found;
}

/** The most agents one grouped read asks for. */
const MAX_AGENTS = 50;

interface Asked {
  agentId: string;
  unrecorded: readonly number[];
  done: (rows: LoadedDelivery[] | undefined, error?: unknown) => void;
}

/** Reads a group of agents' due deliveries, and answers every read in it. */
async function readGroup(deps: CoreDeps, group: Asked[]): Promise<void> {
  const now = deps.clock.now().toISOString();
  try {
    if (group.length === 1) {
      const [only] = group as [Asked];
      only.done(
        await dueOfOneAgent(deps.db).execute({
          agentId: only.agentId,
          now,
          unrecorded: only.unrecorded,
        }),
      );
      return;
    }
    const rows = await dueOfAgents(deps.db).execute({
      agentIds: group.map((asked) => asked.agentId),
      now,
      unrecorded: group.flatMap((asked) => asked.unrecorded),
    });
    const byAgent = new Map<string, LoadedDelivery[]>();
    for (const row of rows) {
      const list = byAgent.get(row.delivery.agentId);
      if (list) list.push(row);
      else byAgent.set(row.delivery.agentId, [row]);
    }
    for (const asked of group) asked.done(byAgent.get(asked.agentId) ?? []);
  } catch (error) {
    for (const asked of group) asked.done(undefined, error);
  }
}

const reads = new WeakMap<CoreDeps["db"], GroupedStatements<Asked>>();

/**
 * The agent's due pending deliveries, up to DRAIN_BATCH, in seq order, but for `unrecorded`.
 * Drains asking in the same turn of the event loop (the agents of one notification, woken
 * together) or while a read is in flight are read together, up to MAX_AGENTS in one statement;
 * a read asked for alone is the one-agent statement.
 */
export function dueDeliveries(
  deps: CoreDeps,
  agentId: string,
  unrecorded: readonly number[],
): Promise<LoadedDelivery[]> {
  let due = reads.get(deps.db);
  if (!due) {
    due = new GroupedStatements("due_read", MAX_AGENTS, (group) => readGroup(deps, group));
    reads.set(deps.db, due);
  }
  const reading = due;
  return new Promise((resolve, reject) =>
    reading.add({
      agentId,
      unrecorded,
      done: (rows, error) => (rows ? resolve(rows) : reject(error)),
    }),
  );
}
