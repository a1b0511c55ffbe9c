import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { users } from "./identity";

/**
 * A browser's Web Push subscription (RFC 8030) for a signed-in person: where the push service
 * takes messages for that browser and the keys to encrypt them to it (RFC 8291). At most 10 per
 * person (core/notifications); a push service's 404 or 410 removes one.
 */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text().notNull().unique(),
    /** The browser's P-256 public key and auth secret, base64url as the browser gives them. */
    p256dh: text().notNull(),
    auth: text().notNull(),
    /** When the push service says the subscription ends (the browser's `expirationTime`). */
    expiresAt: timestamp({ withTimezone: true }),
    /** From the browser's user agent ("Chrome on Android"), shown in the person's settings. */
    deviceLabel: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    lastDeliveredAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("push_subscriptions_user_idx").on(t.userId)],
);

/** What a person wants pushed to their devices; no row means every default. */
export const notificationSettings = pgTable("notification_settings", {
  userId: text()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  newCard: boolean().notNull().default(true),
  agentMessage: boolean().notNull().default(true),
  expiryReminder: boolean().notNull().default(true),
  ownerAlerts: boolean().notNull().default(true),
  /** Off: a push says only who wrote, never what. */
  showText: boolean().notNull().default(true),
  /** Quiet hours, `HH:MM` in `timeZone` (an IANA name); both null: none. */
  quietFrom: text(),
  quietTo: text(),
  timeZone: text().notNull().default(sql`'UTC'`),
  /** Quiet hours hold cards too (by default a card always reaches the person). */
  quietHoldsCards: boolean().notNull().default(false),
  updatedAt: timestamp({ withTimezone: true }).notNull(),
});

/**
 * A console tab the person is looking at (issue 37): its lease, renewed while the tab stays
 * visible and focused, dropped when it is hidden. An agent's message is pushed only while the
 * person has no unexpired row here. In Postgres, not in a web process's memory: the worker
 * that sends the push reads it, and every web process writes it.
 */
export const consolePresence = pgTable(
  "console_presence",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The tab's own random id (sessionStorage), so one tab hiding leaves another's lease. */
    tabId: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.tabId] })],
);
