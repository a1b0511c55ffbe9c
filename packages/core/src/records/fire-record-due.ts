import type { AgentUser } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { appendEvents, type NewEvent } from "../events/append-event";
import { agentUserColumns, toAgentUser } from "../identity/users";
import type { JobPayload } from "../jobs/enqueue-job";
import { dueTime } from "./due-timers";
import { toReminderRecord, toTaskRecord } from "./projections";

const { agentContacts, reminders, tasks, users } = schema;

/** The `record_due` job; `at` is the due time the timer was set for (a moved record has a newer one). */
export type RecordDueJob = JobPayload<"record_due">;

/**
 * A task or reminder came due: tell every agent the person granted `tasks:read` /
 * `reminders:read` (`task.due` / `reminder.due`). A record completed, deleted or moved since
 * the timer was set fires nothing.
 */
export async function fireRecordDue(deps: CoreDeps, job: RecordDueJob): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const at = await dueTime(tx, job.type, job.id);
    if (!at || at.toISOString() !== new Date(job.at).toISOString()) return 0;
    const due = await loadDue(tx, job);
    if (!due) return 0;
    const [person] = await tx.select(agentUserColumns).from(users).where(eq(users.id, due.userId));
    if (!person) return 0;
    const scope = job.type === "task" ? "tasks:read" : "reminders:read";
    const granted = await tx
      .select({ agentId: agentContacts.agentId })
      .from(agentContacts)
      .where(
        and(
          eq(agentContacts.userId, due.userId),
          isNotNull(agentContacts.addedAt),
          isNull(agentContacts.blockedAt),
          sql`${scope} = any(${agentContacts.grantedScopes})`,
        ),
      );
    const events = await appendEvents(
      tx,
      deps.clock.now(),
      granted.map(({ agentId }) => ({
        ...due.toEvent(agentId, toAgentUser(person)),
        personId: person.id,
      })),
    );
    return events.length;
  });
}

/** The record that came due: whose it is, and its `task.due` / `reminder.due` event. */
async function loadDue(
  tx: Tx,
  job: RecordDueJob,
): Promise<{ userId: string; toEvent: (agentId: string, user: AgentUser) => NewEvent } | null> {
  if (job.type === "task") {
    const [row] = await tx.select().from(tasks).where(eq(tasks.id, job.id));
    if (!row) return null;
    const task = toTaskRecord(row);
    return {
      userId: row.userId,
      toEvent: (agentId, user) => ({ agentId, type: "task.due", payload: { user, task } }),
    };
  }
  const [row] = await tx.select().from(reminders).where(eq(reminders.id, job.id));
  if (!row) return null;
  const reminder = toReminderRecord(row);
  return {
    userId: row.userId,
    toEvent: (agentId, user) => ({ agentId, type: "reminder.due", payload: { user, reminder } }),
  };
}
