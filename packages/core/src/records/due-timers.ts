import { schema, type Tx } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { cancelJob, enqueueJob } from "../jobs/enqueue-job";
import type { RecordType } from "./projections";

const { tasks, reminders } = schema;

const dueKey = (type: RecordType, id: string) => `due:${type}:${id}`;

/**
 * Keeps a record's due timer in step with the record, in the same transaction: an open task with
 * a due date and an uncompleted reminder have one keyed job at that time (a moved date replaces
 * it); anything else has none. Only tasks and reminders come due.
 */
export async function syncDueTimer(tx: Tx, type: RecordType, id: string): Promise<void> {
  if (type !== "task" && type !== "reminder") return;
  const at = await dueTime(tx, type, id);
  if (at)
    await enqueueJob(
      tx,
      "record_due",
      { type, id, at: at.toISOString() },
      { runAt: at, jobKey: dueKey(type, id) },
    );
  else await cancelJob(tx, dueKey(type, id));
}

/** When the record comes due now, or null if it does not (done, deleted, undated). */
export async function dueTime(tx: Tx, type: "task" | "reminder", id: string): Promise<Date | null> {
  if (type === "task") {
    const [task] = await tx.select().from(tasks).where(eq(tasks.id, id));
    return task && task.status === "open" && !task.archivedAt ? task.dueDate : null;
  }
  const [reminder] = await tx.select().from(reminders).where(eq(reminders.id, id));
  return reminder && !reminder.isCompleted && !reminder.archivedAt ? reminder.reminderTime : null;
}
