import { sql } from "drizzle-orm";
import { index, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const userType = pgEnum("user_type", ["person", "business", "ai", "agent"]);
export const requestPrivacy = pgEnum("request_privacy", [
  "everyone",
  "nobody",
  "contacts_of_contacts",
]);
/** The address family a token or key was last used from. */
export const addressFamily = pgEnum("address_family", ["ipv4", "ipv6"]);

const timestamps = {
  createdAt: timestamp({ withTimezone: true }).notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull(),
};

/** Every account: people, businesses and agents (an agent's row is its public AgentUser). */
export const users = pgTable(
  "users",
  {
    id: text().primaryKey(),
    num: text().notNull().unique(),
    userType: userType().notNull(),
    displayName: text(),
    avatarUrl: text(),
    bio: text(),
    /** Console sign-in; lower-cased. Agents have none. */
    email: text(),
    passwordHash: text(),
    suspendedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_email_key").on(t.email).where(sql`${t.email} is not null`)],
);

/**
 * Console sessions (stateless JWTs) ended by signing out before they expire: a cookie saved
 * before the sign-out no longer works. Kept until the session would have expired anyway.
 */
export const endedSessions = pgTable(
  "ended_sessions",
  {
    /** The session's `sid` claim. */
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("ended_sessions_expires_idx").on(t.expiresAt)],
);

/** The agent half of an agent's account. `id` is the agent's user id. */
export const agents = pgTable(
  "agents",
  {
    id: text()
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    ownerId: text().references(() => users.id, { onDelete: "set null" }),
    requestPrivacy: requestPrivacy().notNull().default("everyone"),
    requestedScopes: text().array().notNull().default(sql`'{}'::text[]`),
    /** Set while paused; `pauseReason` says by whom (`owner`) or which ceiling (`ceiling:<name>`). */
    pausedAt: timestamp({ withTimezone: true }),
    pauseReason: text(),
    /** Last time the owner resumed it; a same-day resume exempts it from that day's ceilings. */
    resumedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [index("agents_owner_idx").on(t.ownerId)],
);

/** Agent bearer tokens. Only the SHA-256 of the token is stored. */
export const agentTokens = pgTable(
  "agent_tokens",
  {
    id: text().primaryKey(),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    tokenHash: text().notNull().unique(),
    /** The first characters of the token, shown in the console to tell tokens apart. */
    hint: text().notNull(),
    /** What the owner called it at minting ("laptop", "prod"); null when unnamed. */
    name: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    expiresAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    /** Set by the auth statement at most once a minute, with the caller's address family. */
    lastUsedAt: timestamp({ withTimezone: true }),
    lastUsedFamily: addressFamily(),
  },
  (t) => [index("agent_tokens_agent_idx").on(t.agentId)],
);

/** Developer API keys. Only the SHA-256 of the key is stored. */
export const developerKeys = pgTable(
  "developer_keys",
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    keyHash: text().notNull().unique(),
    hint: text().notNull(),
    name: text(),
    scopes: text().array().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    expiresAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
    lastUsedAt: timestamp({ withTimezone: true }),
    lastUsedFamily: addressFamily(),
  },
  (t) => [index("developer_keys_user_idx").on(t.userId)],
);
