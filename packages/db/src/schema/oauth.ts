import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { agents, agentTokens, users } from "./identity";

/**
 * OAuth 2.1 for the MCP endpoint (decision 0070). A grant is an agent token (`agent_tokens`,
 * named after the client) whose hash is the current access token's; these tables hold what the
 * authorization flow needs around it.
 */

/** Clients registered by Dynamic Client Registration (RFC 7591); unused ones expire. */
export const oauthClients = pgTable("oauth_clients", {
  /** The `client_id` handed out: random, unguessable. */
  id: text().primaryKey(),
  /** What the client called itself: shown as "not verified" on the authorization page. */
  name: text().notNull(),
  redirectUris: text().array().notNull().default(sql`'{}'::text[]`),
  createdAt: timestamp({ withTimezone: true }).notNull(),
  /** Pushed forward whenever the client is authorized; a client unused past it is gone. */
  expiresAt: timestamp({ withTimezone: true }).notNull(),
});

/** Authorization codes: single use, short-lived, PKCE S256, bound to client, redirect and agent. */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    codeHash: text().primaryKey(),
    /** A registered client's id or a Client ID Metadata Document's URL. */
    clientId: text().notNull(),
    clientName: text().notNull(),
    redirectUri: text().notNull(),
    codeChallenge: text().notNull(),
    resource: text().notNull(),
    scope: text().notNull(),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("oauth_codes_expires_idx").on(t.expiresAt)],
);

/**
 * Refresh tokens. Each use rotates it (the row is marked used, a new one issued in the same
 * family); a used one presented again revokes the family, that is its grant.
 */
export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text().primaryKey(),
    /** The family: the grant's agent token. */
    grantId: text()
      .notNull()
      .references(() => agentTokens.id, { onDelete: "cascade" }),
    clientId: text().notNull(),
    resource: text().notNull(),
    scope: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("oauth_refresh_tokens_grant_idx").on(t.grantId)],
);
