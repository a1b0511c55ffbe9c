import type { PersonCall } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { asc, desc, eq, inArray } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { agentUserColumns, toAgentUser } from "../identity/users";

const { callParticipants, calls, users } = schema;
const mine = alias(callParticipants, "mine");

/** Calls shown at once in a person's apps. */
export const PERSON_CALLS_SHOWN = 100;

/**
 * A person's calls, newest first: who was on each, their own summary (never another
 * participant's), and the shared transcript in full.
 */
export async function listPersonCalls(deps: CoreDeps, userId: string): Promise<PersonCall[]> {
  const rows = await deps.db
    .select({ call: calls, summary: mine.summary })
    .from(mine)
    .innerJoin(calls, eq(calls.id, mine.callId))
    .where(eq(mine.userId, userId))
    .orderBy(desc(calls.endedAt), desc(calls.id))
    .limit(PERSON_CALLS_SHOWN);
  if (rows.length === 0) return [];
  const people = await deps.db
    .select({ callId: callParticipants.callId, user: agentUserColumns })
    .from(callParticipants)
    .innerJoin(users, eq(users.id, callParticipants.userId))
    .where(
      inArray(
        callParticipants.callId,
        rows.map((row) => row.call.id),
      ),
    )
    .orderBy(asc(callParticipants.position));
  return rows.map(({ call, summary }) => ({
    id: call.id,
    isGroup: call.isGroup,
    participants: people.filter((p) => p.callId === call.id).map((p) => toAgentUser(p.user)),
    startedAt: call.startedAt.toISOString(),
    endedAt: call.endedAt.toISOString(),
    duration: call.duration,
    summary,
    transcript: call.transcript,
  }));
}
