import type { AgentUpdatesResponse } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, desc, eq, gt } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { toAgentEvent } from "./append-event";

const { events } = schema;

/** Events of one agent with seq above `afterSeq`, oldest first. */
export async function readEvents(
  deps: CoreDeps,
  agentId: string,
  afterSeq: number,
  limit: number,
): Promise<AgentUpdatesResponse> {
  const rows = await deps.db
    .select()
    .from(events)
    .where(and(eq(events.agentId, agentId), gt(events.seq, afterSeq)))
    .orderBy(asc(events.seq))
    .limit(limit);
  const list = rows.map(toAgentEvent);
  return { events: list, nextSeq: list.at(-1)?.seq ?? afterSeq };
}

/** `GET /updates/cursor`: the agent's latest seq, 0 when it has none. */
export async function latestSeq(deps: CoreDeps, agentId: string): Promise<number> {
  const [row] = await deps.db
    .select({ seq: events.seq })
    .from(events)
    .where(eq(events.agentId, agentId))
    .orderBy(desc(events.seq))
    .limit(1);
  return row?.seq ?? 0;
}
