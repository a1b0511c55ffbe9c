import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * `Idempotency-Key`s of POSTs (decision 0060): a key is the agent's own (or the developer
 * key's), claimed by the first request and answered by it. `answerBody` is written in the same
 * transaction as the write the request made, so a retry replays it and never acts twice; a row
 * without an answer is a request still running (or one that died, retaken after `claimedAt`
 * plus the lease). Rows past `expiresAt` are deleted by the worker's cleanup, or taken over.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    /** The agent id, or the developer key's id: whose key it is. */
    ownerId: text().notNull(),
    key: text().notNull(),
    /** The request the key was first used for: a hash of method, path and canonical body. */
    fingerprint: text().notNull(),
    /** The running request's own id; the answer is written only under it. */
    claim: text().notNull(),
    claimedAt: timestamp({ withTimezone: true }).notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    /** The first answer, null while the request runs. */
    answerStatus: integer(),
    answerBody: text(),
  },
  (t) => [
    primaryKey({ columns: [t.ownerId, t.key] }),
    index("idempotency_keys_expires_idx").on(t.expiresAt),
  ],
);
