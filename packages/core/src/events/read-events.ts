import type { AgentUpdatesResponse } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, desc, eq, gt, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { preparedQuery } from "../prepared-query";
import { currentScopes, isShown, standingJoins, toVisibleEvent } from "./event-visibility";

const { agentContacts, events, users } = schema;

/**
 * Events of one agent with seq above `afterSeq`, oldest first, as the agent may see them now
 * (masked or left out by each person's current grant; see event-visibility.ts), in one query.
 * Events left out never count toward `limit`; the cursor passes them with the next event shown.
 */
export async function readEvents(
  deps: CoreDeps,
  agentId: string,
  afterSeq: number,
  limit: number,
): Promise<AgentUpdatesResponse> {
  const rows = await eventsAfter(deps.db).execute({ agentId, afterSeq, limit });
  const list = rows.flatMap(({ event, scopes }) => toVisibleEvent(event, scopes) ?? []);
  return { events: list, nextSeq: list.at(-1)?.seq ?? afterSeq };
}

/** `GET /updates/cursor`: the seq of the agent's latest event it may see, 0 when none. */
export async function latestSeq(deps: CoreDeps, agentId: string): Promise<number> {
  const [row] = await lastShown(deps.db).execute({ agentId });
  return row?.seq ?? 0;
}

const eventsAfter = preparedQuery((db) =>
  db
    .select({ event: events, scopes: currentScopes })
    .from(events)
    .leftJoin(agentContacts, standingJoins.contact)
    .leftJoin(users, standingJoins.person)
    .where(
      and(
        eq(events.agentId, sql.placeholder("agentId")),
        gt(events.seq, sql.placeholder("afterSeq")),
        isShown,
      ),
    )
    .orderBy(asc(events.seq))
    .limit(sql.placeholder("limit"))
    .prepare("events_after"),
);

const lastShown = preparedQuery((db) =>
  db
    .select({ seq: events.seq })
    .from(events)
    .leftJoin(agentContacts, standingJoins.contact)
    .leftJoin(users, standingJoins.person)
    .where(and(eq(events.agentId, sql.placeholder("agentId")), isShown))
    .orderBy(desc(events.seq))
    .limit(1)
    .prepare("last_shown_event"),
);
