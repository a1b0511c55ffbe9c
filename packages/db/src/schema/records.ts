import { boolean, index, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./identity";

/**
 * A person's own records, which platform skills create and change after approval. Each lives on
 * one account (`userId`); archived records are hidden from agents.
 */
const owned = {
  id: text().primaryKey(),
  userId: text()
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  createdAt: timestamp({ withTimezone: true }).notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull(),
  archivedAt: timestamp({ withTimezone: true }),
};

export const taskStatus = pgEnum("task_status", ["open", "completed"]);
export const taskPriority = pgEnum("task_priority", ["low", "normal", "high"]);

export const tasks = pgTable(
  "tasks",
  {
    ...owned,
    title: text().notNull(),
    description: text(),
    dueDate: timestamp({ withTimezone: true }),
    status: taskStatus().notNull().default("open"),
    priority: taskPriority(),
    completedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("tasks_user_created_idx").on(t.userId, t.createdAt)],
);

export const reminders = pgTable(
  "reminders",
  {
    ...owned,
    title: text().notNull(),
    reminderTime: timestamp({ withTimezone: true }).notNull(),
    isCompleted: boolean().notNull().default(false),
  },
  (t) => [index("reminders_user_created_idx").on(t.userId, t.createdAt)],
);

export const calendarEvents = pgTable(
  "calendar_events",
  {
    ...owned,
    title: text().notNull(),
    description: text(),
    startTime: timestamp({ withTimezone: true }).notNull(),
    endTime: timestamp({ withTimezone: true }),
    location: text(),
  },
  (t) => [index("calendar_events_user_created_idx").on(t.userId, t.createdAt)],
);

export const notes = pgTable(
  "notes",
  {
    ...owned,
    title: text(),
    content: text().notNull(),
    type: text().notNull().default("text"),
    isPinned: boolean().notNull().default(false),
  },
  (t) => [index("notes_user_created_idx").on(t.userId, t.createdAt)],
);
