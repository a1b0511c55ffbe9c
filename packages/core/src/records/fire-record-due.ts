import { schema } from "@switchboard/db";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { appendEvents } from "../events/append-event";
import { toAgentUser } from "../identity/users";
import { dueTime } from "./due-timers";
import { recordTables, toRecord } from "./projections";

const { agentContacts, users } = schema;

export interface RecordDueJob {
  type: "task" | "reminder";
  id: string;
  /** The due time the timer was set for; a record moved since then has a newer timer. */
  at: string;
}

/**
 * A task or reminder came due: tell every agent the person granted `tasks:read` /
 * `reminders:read` (`task.due` / `reminder.due`). A record completed, deleted or moved since
 * the timer was set fires nothing.
 */
export async function fireRecordDue(deps: CoreDeps, job: RecordDueJob): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const at = await dueTime(tx, job.type, job.id);
    if (!at || at.toISOString() !== new Date(job.at).toISOString()) return 0;
    const table = recordTables[job.type];
    const [row] = await tx.select().from(table).where(eq(table.id, job.id));
    if (!row) return 0;
    const [person] = await tx.select().from(users).where(eq(users.id, row.userId));
    if (!person) return 0;
    const scope = job.type === "task" ? "tasks:read" : "reminders:read";
    const granted = await tx
      .select({ agentId: agentContacts.agentId })
      .from(agentContacts)
      .where(
        and(
          eq(agentContacts.userId, row.userId),
          isNotNull(agentContacts.addedAt),
          isNull(agentContacts.blockedAt),
          sql`${scope} = any(${agentContacts.grantedScopes})`,
        ),
      );
    const events = await appendEvents(
      tx,
      deps.clock.now(),
      granted.map(({ agentId }) => ({
        agentId,
        type: `${job.type}.due`,
        payload: { user: toAgentUser(person), [job.type]: toRecord(job.type, row) },
      })),
    );
    return events.length;
  });
}
