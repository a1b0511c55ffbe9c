import type { AgentUser, UserType } from "@switchboard/contract";
import { Num } from "@switchboard/contract";
import { isUniqueViolation, schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyAgentControl } from "../events/agent-control";
import { newId } from "../ids";
import { hitRateLimit } from "../limits/rate-limit";
import { assertSessionStanding, consoleSessionStanding } from "./console-sessions";
import { randomPersonNum, withFreshNum } from "./nums";
import { hashPassword, verifyNoPassword, verifyPassword } from "./passwords";

const { agents, users } = schema;
type UserRow = typeof users.$inferSelect;

/**
 * The columns `toAgentUser` shows: a select that answers with a user takes these, not the whole
 * row, so a password hash or an email never rides along.
 */
export const agentUserColumns = {
  id: users.id,
  num: users.num,
  displayName: users.displayName,
  avatarUrl: users.avatarUrl,
  userType: users.userType,
};

/**
 * A user as every read but sign-in and their own account page takes it ("a person as seen by
 * others"): what `toAgentUser` shows and their standing (suspension). The one column set for
 * conversation lists, threads, calls and jobs, so a password hash or an email never rides along.
 */
export const seenUserColumns = seenColumnsOf(users);
export type SeenUser = Pick<UserRow, keyof typeof seenUserColumns>;

/** `seenUserColumns` of an alias of `users` (a query joining two users). */
export function seenColumnsOf<T extends Record<SeenColumn, unknown>>(
  table: T,
): Pick<T, SeenColumn> {
  const { id, num, displayName, avatarUrl, userType, suspendedAt } = table;
  return { id, num, displayName, avatarUrl, userType, suspendedAt };
}
type SeenColumn = keyof typeof agentUserColumns | "suspendedAt";

export function toAgentUser(
  row: Pick<UserRow, "id" | "num" | "displayName" | "avatarUrl" | "userType">,
): AgentUser {
  return {
    id: row.id,
    num: row.num,
    displayName: row.displayName,
    avatarUrl: row.avatarUrl,
    userType: row.userType,
  };
}

export interface CreateUserInput {
  displayName?: string | null;
  num?: string;
  userType?: Extract<UserType, "person" | "business">;
  email?: string;
  password?: string;
}

/** Creates a person or business. A number is drawn when none is given. */
export async function createUser(deps: CoreDeps, input: CreateUserInput): Promise<AgentUser> {
  if (input.num !== undefined) {
    if (!Num.safeParse(input.num).success)
      throw new CoreError("validation_error", "num must look like 123-456-789");
    if (input.num.startsWith("800-"))
      throw new CoreError("validation_error", "numbers starting with 800- belong to agents");
  }
  if ((input.email === undefined) !== (input.password === undefined))
    throw new CoreError("validation_error", "email and password go together");
  const email = input.email?.trim().toLowerCase();
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email))
    throw new CoreError("validation_error", "email is not an email address");
  if (input.password !== undefined && input.password.length < 8)
    throw new CoreError("validation_error", "password must be at least 8 characters");

  const now = deps.clock.now();
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const insert = async (num: string) => {
    const [row] = await deps.db
      .insert(users)
      .values({
        id: newId("usr"),
        num,
        userType: input.userType ?? "person",
        displayName: input.displayName?.trim() || null,
        email: email ?? null,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return toAgentUser(row as UserRow);
  };
  try {
    return input.num === undefined
      ? await withFreshNum(randomPersonNum, insert)
      : await insert(input.num);
  } catch (error) {
    if (isUniqueViolation(error, "users_num_unique"))
      throw new CoreError("conflict", `number ${input.num} is taken`);
    if (isUniqueViolation(error, "users_email_key"))
      throw new CoreError("conflict", "an account with that email exists");
    throw error;
  }
}

const SIGNIN_WINDOW_S = 15 * 60;
const SIGNUP_WINDOW_S = 60 * 60;

/** Where a console request came from (`clientNetwork`), when the web app could tell. */
export interface RequestSource {
  network: string | null;
}

/** One attempt against a console limit; over it, a `rate_limited` the page shows as it is. */
async function countAttempt(
  deps: CoreDeps,
  key: string,
  limit: number,
  windowSeconds: number,
  refusal: string,
): Promise<void> {
  const state = await hitRateLimit(deps.db, deps.clock.now(), key, limit, windowSeconds);
  if (!state.allowed)
    throw new CoreError(
      "rate_limited",
      `${refusal} Try again in ${Math.ceil(state.resetSeconds / 60)} minutes.`,
      { retryAfterSeconds: state.resetSeconds },
    );
}

/**
 * Checks console credentials; answers the user, or null for any mismatch (no hint which, and
 * no difference in time: an unknown email costs the same hash comparison as a known one).
 * Attempts are limited per email (`LIMIT_SIGNIN_ATTEMPTS` per 15 minutes: guessing one
 * password) and per client network (`LIMIT_SIGNIN_ATTEMPTS_PER_IP`: trying many accounts).
 */
export async function verifyCredentials(
  deps: CoreDeps,
  email: string,
  password: string,
  source: RequestSource = { network: null },
): Promise<AgentUser | null> {
  const address = email.trim().toLowerCase();
  if (source.network)
    await countAttempt(
      deps,
      `signin-ip:${source.network}`,
      deps.config.LIMIT_SIGNIN_ATTEMPTS_PER_IP,
      SIGNIN_WINDOW_S,
      "Too many sign-in attempts from your network.",
    );
  await countAttempt(
    deps,
    `signin:${address}`,
    deps.config.LIMIT_SIGNIN_ATTEMPTS,
    SIGNIN_WINDOW_S,
    "Too many sign-in attempts for this email.",
  );
  const [row] = await deps.db.select().from(users).where(eq(users.email, address));
  if (!row?.passwordHash || row.suspendedAt) return verifyNoPassword(password).then(() => null);
  return (await verifyPassword(password, row.passwordHash)) ? toAgentUser(row) : null;
}

/**
 * A person's own sign-up in the console: `createUser` with email and password, limited per
 * client network (`LIMIT_SIGNUPS_PER_IP` per hour: mass sign-ups, probing which emails have
 * accounts) and per email (`LIMIT_SIGNIN_ATTEMPTS` per 15 minutes).
 */
export async function signUpPerson(
  deps: CoreDeps,
  input: { displayName: string; email: string; password: string },
  source: RequestSource = { network: null },
): Promise<AgentUser> {
  if (source.network)
    await countAttempt(
      deps,
      `signup-ip:${source.network}`,
      deps.config.LIMIT_SIGNUPS_PER_IP,
      SIGNUP_WINDOW_S,
      "Too many sign-ups from your network.",
    );
  await countAttempt(
    deps,
    `signup:${input.email.trim().toLowerCase()}`,
    deps.config.LIMIT_SIGNIN_ATTEMPTS,
    SIGNIN_WINDOW_S,
    "Too many sign-up attempts for this email.",
  );
  return createUser(deps, { ...input, userType: "person" });
}

/** Finds a user by id or `<num>`; agents included. */
export async function findUser(deps: CoreDeps, ref: string): Promise<SeenUser> {
  const [row] = await deps.db
    .select(seenUserColumns)
    .from(users)
    .where(Num.safeParse(ref).success ? eq(users.num, ref) : eq(users.id, ref));
  if (!row) throw new CoreError("not_found", `no user ${ref}`);
  return row;
}

/**
 * A console session's person as they stand now: sessions are stateless tokens, so suspension,
 * removal and sign-out are checked on every call rather than waiting for the session to expire.
 */
export async function assertSessionUserActive(
  deps: CoreDeps,
  id: string,
  sessionId?: string,
): Promise<void> {
  assertSessionStanding(await consoleSessionStanding(deps, id, sessionId));
}

export async function getUser(deps: CoreDeps, id: string): Promise<AgentUser> {
  return toAgentUser(await findUser(deps, id));
}

export async function setUserSuspended(deps: CoreDeps, ref: string, suspended: boolean) {
  const user = await findUser(deps, ref);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ suspendedAt: suspended ? (user.suspendedAt ?? now) : null, updatedAt: now })
      .where(eq(users.id, user.id));
    // The agents they own (and, if an agent itself, that agent) stop streaming at once.
    const owned = await tx
      .select({ id: agents.id })
      .from(agents)
      .where(eq(agents.ownerId, user.id));
    if (suspended) await notifyAgentControl(tx, [user.id, ...owned.map((agent) => agent.id)]);
  });
}
