import { z } from "zod";
import { DateTime } from "./common";

/** Read-only projections of a person's records; references to people or categories never appear. */
export const TaskRecord = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  dueDate: DateTime.nullable(),
  status: z.enum(["open", "completed"]),
  priority: z.enum(["low", "normal", "high"]).nullable(),
  createdAt: DateTime,
  completedAt: DateTime.nullable(),
});
export type TaskRecord = z.infer<typeof TaskRecord>;

export const ReminderRecord = z.object({
  id: z.string(),
  title: z.string(),
  reminderTime: DateTime,
  isCompleted: z.boolean(),
  createdAt: DateTime,
});
export type ReminderRecord = z.infer<typeof ReminderRecord>;

export const EventRecord = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  startTime: DateTime,
  endTime: DateTime.nullable(),
  location: z.string().nullable(),
  createdAt: DateTime,
});
export type EventRecord = z.infer<typeof EventRecord>;

export const NoteRecord = z.object({
  id: z.string(),
  title: z.string().nullable(),
  content: z.string(),
  type: z.string(),
  isPinned: z.boolean(),
  createdAt: DateTime,
});
export type NoteRecord = z.infer<typeof NoteRecord>;

export const MAX_RECORDS_PER_LIST = 200;
