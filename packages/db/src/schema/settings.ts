import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Instance-wide settings shared by every process (for example the console's signing secret). */
export const instanceSettings = pgTable("instance_settings", {
  key: text().primaryKey(),
  value: jsonb().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull(),
});
