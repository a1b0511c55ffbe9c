import { schema } from "@switchboard/db";
import { sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { newId } from "../ids";

const { endedSessions } = schema;

/**
 * Console sessions are stateless JWTs (decision 0010), so any web process can read one; what
 * the token cannot say — the account was suspended or removed, or this session was signed out
 * — is read from the database on every console request, in one primary-key query.
 */
export type SessionStanding = "active" | "suspended" | "ended" | "gone";

/** The id a session carries from sign-in to sign-out (its `sid` claim). */
export const newConsoleSessionId = () => newId("ses");

export async function consoleSessionStanding(
  deps: CoreDeps,
  userId: string,
  sessionId?: string,
): Promise<SessionStanding> {
  const rows = await deps.db.execute<{ suspended: boolean; ended: boolean }>(sql`
    select u.suspended_at is not null as suspended,
           exists (select 1 from ended_sessions e where e.id = ${sessionId ?? ""}) as ended
    from users u where u.id = ${userId}`);
  const [row] = rows;
  if (!row) return "gone";
  if (row.ended) return "ended";
  return row.suspended ? "suspended" : "active";
}

/** The refusal for a session that may not act: 401 to sign in again, 403 when suspended. */
export function assertSessionStanding(standing: SessionStanding): void {
  if (standing === "gone")
    throw new CoreError("unauthorized", "This account no longer exists; sign in again");
  if (standing === "ended")
    throw new CoreError("unauthorized", "This session was signed out; sign in again");
  if (standing === "suspended")
    throw new CoreError("account_suspended", "Your account is suspended");
}

/**
 * Signing out: the session stops working everywhere at once, not only in the browser that
 * dropped its cookie. Kept until `expiresAt`, when the token would have stopped anyway.
 */
export async function endConsoleSession(
  deps: CoreDeps,
  session: { userId: string; sessionId: string; expiresAt: Date },
): Promise<void> {
  await deps.db
    .insert(endedSessions)
    .values({ id: session.sessionId, userId: session.userId, expiresAt: session.expiresAt })
    .onConflictDoNothing();
}
