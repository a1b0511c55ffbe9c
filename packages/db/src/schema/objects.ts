import { bigint, customType, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./identity";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/**
 * Media the service stores (voice notes, images, documents, videos), addressed as
 * `/objects/<id>`. Kept in Postgres so every process can read them; the core's object store
 * interface lets an S3-compatible store replace this table later.
 */
export const objects = pgTable(
  "objects",
  {
    id: text().primaryKey(),
    ownerId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mimeType: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    data: bytea(),
    /** Set when the bytes were deleted (the row stays so references answer "gone", not "unknown"). */
    deletedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("objects_owner_idx").on(t.ownerId)],
);

/**
 * The last picture fetched from each agent's `avatarUrl`, shared by everyone who has a chat with
 * it: the console serves it from here for a day (core's `getChatAgentAvatar`), so the agent's
 * server is asked about once a day, not each time someone opens the console.
 */
export const agentPictures = pgTable("agent_pictures", {
  agentId: text()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** The `avatarUrl` these bytes came from: a new URL is fetched at once. */
  sourceUrl: text().notNull(),
  mimeType: text().notNull(),
  data: bytea().notNull(),
  fetchedAt: timestamp({ withTimezone: true }).notNull(),
});
