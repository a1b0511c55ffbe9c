import {
  type EventRecord,
  type NoteRecord,
  RecordType,
  type ReminderRecord,
  type TaskRecord,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";

const { tasks, reminders, calendarEvents, notes } = schema;

export type { AnyRecord, RecordType } from "@switchboard/contract";
export const recordTables = {
  task: tasks,
  reminder: reminders,
  event: calendarEvents,
  note: notes,
};
export const recordTypes = RecordType.options;
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

/** Each record type's projection. */
export interface RecordOf {
  task: TaskRecord;
  reminder: ReminderRecord;
  event: EventRecord;
  note: NoteRecord;
}

const projections: { [T in RecordType]: (row: Record<string, unknown>) => RecordOf[T] } = {
  task: (row) => toTaskRecord(row as typeof tasks.$inferSelect),
  reminder: (row) => toReminderRecord(row as typeof reminders.$inferSelect),
  event: (row) => toEventRecord(row as typeof calendarEvents.$inferSelect),
  note: (row) => toNoteRecord(row as typeof notes.$inferSelect),
};

export function toRecord<T extends RecordType>(type: T, row: Record<string, unknown>): RecordOf[T] {
  return projections[type](row);
}
