import type { EventRecord, NoteRecord, ReminderRecord, TaskRecord } from "@switchboard/contract";
import { schema } from "@switchboard/db";

const { tasks, reminders, calendarEvents, notes } = schema;

export type RecordType = "task" | "reminder" | "event" | "note";
export const recordTables = {
  task: tasks,
  reminder: reminders,
  event: calendarEvents,
  note: notes,
};
export const recordTypes = Object.keys(recordTables) as RecordType[];
export const recordPrefixes = { task: "tsk", reminder: "rem", event: "cev", note: "not" } as const;

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toTaskRecord(row: typeof tasks.$inferSelect): TaskRecord {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    dueDate: iso(row.dueDate),
    status: row.status,
    priority: row.priority,
    createdAt: row.createdAt.toISOString(),
    completedAt: iso(row.completedAt),
  };
}

export function toReminderRecord(row: typeof reminders.$inferSelect): ReminderRecord {
  return {
    id: row.id,
    title: row.title,
    reminderTime: row.reminderTime.toISOString(),
    isCompleted: row.isCompleted,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toEventRecord(row: typeof calendarEvents.$inferSelect): EventRecord {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    startTime: row.startTime.toISOString(),
    endTime: iso(row.endTime),
    location: row.location,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toNoteRecord(row: typeof notes.$inferSelect): NoteRecord {
  return {
    id: row.id,
    title: row.title,
    content: row.content,
    type: row.type,
    isPinned: row.isPinned,
    createdAt: row.createdAt.toISOString(),
  };
}

export type AnyRecord = TaskRecord | ReminderRecord | EventRecord | NoteRecord;

export function toRecord(type: RecordType, row: Record<string, unknown>): AnyRecord {
  switch (type) {
    case "task":
      return toTaskRecord(row as typeof tasks.$inferSelect);
    case "reminder":
      return toReminderRecord(row as typeof reminders.$inferSelect);
    case "event":
      return toEventRecord(row as typeof calendarEvents.$inferSelect);
    case "note":
      return toNoteRecord(row as typeof notes.$inferSelect);
  }
}
