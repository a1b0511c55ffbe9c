import type { AgentMe, AgentTokenInfo } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { PendingQuery, Row, Sql } from "postgres";
import { BoundedMap } from "../bounded-map";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyAgentControl } from "../events/agent-control";
import { newId } from "../ids";
import { type RateState, rateLimitedError, rateState, rateWindow } from "../limits/rate-limit";
import { hashSecret, newSecret, secretHint } from "../secrets";
import { pausedMessage, toAgentMe } from "./agents";
import { type AddressFamily, AGENT_TOKEN_PREFIX, credentialName } from "./credentials";

const { agentTokens, agents } = schema;

function toTokenInfo(row: typeof agentTokens.$inferSelect): AgentTokenInfo {
  return {
    id: row.id,
    hint: row.hint,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    lastUsedFamily: row.lastUsedFamily,
  };
}

/** Mints a token; the raw token is returned this once and only its hash is kept. */
export async function mintAgentToken(
  deps: CoreDeps,
  agentId: string,
  options: { expiresAt?: Date | null; name?: string | null } = {},
): Promise<{ token: string; info: AgentTokenInfo }> {
  const name = credentialName(options.name);
  const now = deps.clock.now();
  if (options.expiresAt && options.expiresAt <= now)
    throw new CoreError("validation_error", "expiry must be in the future");
  const [agent] = await deps.db
    .select({ id: agents.id })
    .from(agents)
    .where(eq(agents.id, agentId));
  if (!agent) throw new CoreError("not_found", `no agent ${agentId}`);
  const token = newSecret(AGENT_TOKEN_PREFIX);
  const [row] = await deps.db
    .insert(agentTokens)
    .values({
      id: newId("tok"),
      agentId,
      tokenHash: hashSecret(token),
      hint: secretHint(token),
      name,
      createdAt: now,
      expiresAt: options.expiresAt ?? null,
    })
    .returning();
  return { token, info: toTokenInfo(row as typeof agentTokens.$inferSelect) };
}

export async function listAgentTokens(deps: CoreDeps, agentId: string): Promise<AgentTokenInfo[]> {
  const rows = await deps.db
    .select()
    .from(agentTokens)
    .where(eq(agentTokens.agentId, agentId))
    .orderBy(desc(agentTokens.createdAt));
  return rows.map(toTokenInfo);
}

/** Revokes by raw token (operator CLI) or by id within an agent (console). Idempotent. */
export async function revokeAgentToken(
  deps: CoreDeps,
  which: { token: string } | { tokenId: string; agentId: string },
): Promise<void> {
  const where =
    "token" in which
      ? eq(agentTokens.tokenHash, hashSecret(which.token))
      : and(eq(agentTokens.id, which.tokenId), eq(agentTokens.agentId, which.agentId));
  const [row] = await deps.db
    .select({ id: agentTokens.id, agentId: agentTokens.agentId })
    .from(agentTokens)
    .where(where);
  if (!row) throw new CoreError("not_found", "no such token");
  await deps.db.transaction(async (tx) => {
    await tx
      .update(agentTokens)
      .set({ revokedAt: deps.clock.now() })
      .where(and(eq(agentTokens.id, row.id), isNull(agentTokens.revokedAt)));
    await notifyAgentControl(tx, [row.agentId]); // streams on this token close at once
  });
}

/** Who is calling the Agent API, as far as the token tells. */
export interface AgentPrincipal {
  agentId: string;
  tokenId: string;
  /** Set while the agent is paused; the pipeline refuses every call with `agent_paused`. */
  pauseReason: string | null;
}

interface TokenRow {
  token_id: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  agent_id: string;
  paused_at: Date | null;
  pause_reason: string | null;
  agent_suspended_at: Date | null;
  owner_id: string | null;
  owner_suspended_at: Date | null;
  request_count: number | null;
  /** Whether the agent has any event after the cursor the call attached (null: none attached). */
  events_after: boolean | null;
  /** The text of the route's own read (`AdmissionRead.column`; null: none attached). */
  route_read: string | null;
  /** The agent's profile, for `GET /me` without a second statement. */
  num: string;
  display_name: string | null;
  avatar_url: string | null;
  bio: string | null;
  request_privacy: AgentMe["requestPrivacy"];
  requested_scopes: string[];
  created_at: Date;
}

/**
 * The admission's CTEs, as `lookupToken`'s statement and a send's one statement use them:
 * `found` (the token, its agent and owner), `hit` (one request counted, for a token that passes)
 * and `used` (its last use). postgres.js's own template: one fixed text per shape.
 */
function admissionParts(
  pg: Sql,
  tokenHash: string,
  at: string,
  window: ReturnType<typeof rateWindow>,
  countRequest: boolean,
  family: AddressFamily | null,
) {
  return pg`found as (
      select t.id as token_id, t.expires_at, t.revoked_at, a.id as agent_id, a.paused_at,
             a.pause_reason, u.suspended_at as agent_suspended_at, o.id as owner_id,
             o.suspended_at as owner_suspended_at, u.num, u.display_name, u.avatar_url, u.bio,
             a.request_privacy, a.requested_scopes, u.created_at
      from agent_tokens t
      join agents a on a.id = t.agent_id
      join users u on u.id = a.id
      left join users o on o.id = a.owner_id
      where t.token_hash = ${tokenHash}
    ), hit as (
      insert into rate_counters (key, window_start, count)
      select 'requests:' || agent_id, ${window.start.toISOString()}::timestamptz, 1 from found
      where ${countRequest} and revoked_at is null
        and (expires_at is null or expires_at > ${at}::timestamptz)
        and owner_id is not null and owner_suspended_at is null and agent_suspended_at is null
        and paused_at is null
      on conflict (key, window_start) do update set count = rate_counters.count + 1
      returning count
    ), used as (
      update agent_tokens t
      set last_used_at = ${at}::timestamptz,
          last_used_family = coalesce(${family}::address_family, t.last_used_family)
      from found
      where t.id = found.token_id and found.revoked_at is null
        and (found.expires_at is null or found.expires_at > ${at}::timestamptz)
        and (t.last_used_at is null
          or t.last_used_at <= ${at}::timestamptz - interval '1 minute'
          or t.last_used_family is distinct from coalesce(${family}::address_family, t.last_used_family))
    )`;
}

/**
 * One query for everything a call needs to know about its token: token state, agent, owner
 * account, and — when `countRequest` — one hit on the agent's per-minute request counter, taken
 * only for a token that passes (a refused call does not use up the limit).
 *
 * The statement commits without waiting for the WAL flush (`synchronous_commit` off for its own
 * implicit transaction only): it writes nothing but that counter, and an increment lost in a
 * database crash is harmless, while the flush was half of every API call's database time
 * (docs/benchmarks.md). It must run on its own, never inside a caller's transaction.
 *
 * A valid token's "last used" (time and address family) is written by the same statement, at
 * most once a minute (or when the family changes): other calls match no row and write nothing.
 */
async function lookupToken(
  deps: CoreDeps,
  tokenHash: string,
  now: Date,
  countRequest: boolean,
  family: AddressFamily | null,
  eventsAfter: number | null = null,
  column: AdmissionRead["column"] = undefined,
) {
  const window = rateWindow(now, 60);
  const at = now.toISOString();
  // postgres.js's own template, not drizzle's: one fixed text, prepared once per connection,
  // with nothing built per call but its parameters (issue 41).
  const parts = admissionParts(deps.sql, tokenHash, at, window, countRequest, family);
  const rows = await deps.sql<TokenRow[]>`
    with async_commit as (select set_config('synchronous_commit', 'off', true)), ${parts}
    select found.*, (select count from hit) as request_count,
           (select 1 from async_commit) as async_commit,
           case when ${eventsAfter}::bigint is not null and (select count from hit) is not null
             then exists (select 1 from events e
                          where e.agent_id = found.agent_id and e.seq > ${eventsAfter}::bigint)
           end as events_after,
           ${column ? deps.sql`case when (select count from hit) is not null then ${column.read(deps.sql, deps.sql`found.agent_id`)} end` : deps.sql`null`}::text as route_read
    from found`;
  return { row: rows[0], window };
}

function principalOf(row: TokenRow | undefined, now: Date): AgentPrincipal {
  if (!row) throw new CoreError("unauthorized", "The agent token is not valid");
  if (row.revoked_at) throw new CoreError("token_revoked", "The agent token was revoked");
  if (row.expires_at && new Date(row.expires_at) <= now)
    throw new CoreError("token_expired", "The agent token has expired");
  if (!row.owner_id || row.owner_suspended_at || row.agent_suspended_at)
    throw new CoreError("unauthorized", "The agent's owner account is unavailable");
  return {
    agentId: row.agent_id,
    tokenId: row.token_id,
    pauseReason: row.paused_at ? (row.pause_reason ?? "owner") : null,
  };
}

/**
 * Resolves a raw agent token without counting a request (the stream re-checks with it).
 * Throws the spec's 401 codes; pause is left to `assertAgentActive` so it answers 403.
 */
export async function authenticateAgent(
  deps: CoreDeps,
  token: string,
  client: { family?: AddressFamily | null } = {},
): Promise<AgentPrincipal> {
  const now = deps.clock.now();
  const { row } = await lookupToken(deps, hashSecret(token), now, false, client.family ?? null);
  return principalOf(row, now);
}

/**
 * The token with this id still lets its agent act: the refusals of `authenticateAgent` and
 * `assertAgentActive`, read by id (a parked long-poll re-checks so on a control wake-up).
 */
export async function assertTokenStanding(deps: CoreDeps, tokenId: string): Promise<void> {
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    select t.id as token_id, t.expires_at, t.revoked_at, a.id as agent_id, a.paused_at,
           a.pause_reason, u.suspended_at as agent_suspended_at, o.id as owner_id,
           o.suspended_at as owner_suspended_at
    from agent_tokens t
    join agents a on a.id = t.agent_id
    join users u on u.id = a.id
    left join users o on o.id = a.owner_id
    where t.id = ${tokenId}`);
  assertAgentActive(principalOf(rows[0] as unknown as TokenRow | undefined, deps.clock.now()));
}

export function assertAgentActive(principal: AgentPrincipal): void {
  if (principal.pauseReason !== null)
    throw new CoreError("agent_paused", pausedMessage(principal.pauseReason));
}

/**
 * What a route may read within its admission statement (decision 0075): `eventsAfter`, a
 * cursor, asks whether the agent has any event after it (`GET /updates`: with none, nothing can
 * be shown and the call needs no read of its own before it answers or parks).
 */
export interface AdmissionRead {
  eventsAfter?: number;
  /**
   * A route's own read: a scalar subquery of one text, given the agent's id as an expression of
   * the statement (`read(sql, agent)`), run only for a call let in. `key` names what it read, so the
   * route uses the text only for the input it then parsed (history: its conversation and page).
   */
  column?: {
    key: string;
    read: (sql: Sql, agent: PendingQuery<Row[]>) => PendingQuery<Row[]>;
  };
}

/** An admitted agent call: who, where it stands against its limit, and what the statement read. */
export type AdmittedAgent = AgentPrincipal & {
  rate: RateState;
  me: AgentMe;
  /** Given `eventsAfter`: whether any event of the agent's has a seq above it. */
  eventsAfter?: { afterSeq: number; any: boolean };
  /** Given `column`: the text its read answered. */
  column?: { key: string; text: string | null };
};

/**
 * The first stages of every Agent API call in one round trip: authenticate (401), account state
 * (403 `agent_paused`), and the per-agent request limit (429), answering where the agent stands
 * against that limit for the RateLimit-* headers, the agent's own profile as that same
 * statement read it (`GET /me` needs nothing more), and the route's own `read`, if it attached
 * one. `token` is the raw token, or one this process let in before (`knownAgentToken`), whose
 * hash is known.
 */
export async function authorizeAgentRequest(
  deps: CoreDeps,
  token: string | KnownAgentToken,
  client: { family?: AddressFamily | null } = {},
  read: AdmissionRead = {},
): Promise<AdmittedAgent> {
  const now = deps.clock.now();
  const tokenHash = typeof token === "string" ? hashSecret(token) : token.tokenHash;
  const { row, window } = await lookupToken(
    deps,
    tokenHash,
    now,
    true,
    client.family ?? null,
    read.eventsAfter ?? null,
    read.column,
  );
  const principal = principalOf(row, now);
  assertAgentActive(principal);
  const state = rateState(
    Number(row?.request_count ?? 1),
    deps.config.LIMIT_REQUESTS_PER_MIN,
    window,
  );
  if (!state.allowed) throw rateLimitedError(state, "requests");
  const found = row as TokenRow;
  const me = toAgentMe({
    id: found.agent_id,
    num: found.num,
    displayName: found.display_name,
    avatarUrl: found.avatar_url,
    bio: found.bio,
    ownerId: found.owner_id,
    requestPrivacy: found.request_privacy,
    requestedScopes: found.requested_scopes,
    createdAt: new Date(found.created_at),
  });
  if (!admittedTokens.has(tokenHash))
    admittedTokens.set(tokenHash, { agentId: principal.agentId, tokenId: principal.tokenId });
  return {
    ...principal,
    rate: state,
    me,
    ...(read.eventsAfter !== undefined &&
      found.events_after !== null && {
        eventsAfter: { afterSeq: read.eventsAfter, any: found.events_after },
      }),
    ...(read.column && { column: { key: read.column.key, text: found.route_read } }),
  };
}

/**
 * Tokens this process let in, by their hash: the agent each names (a token names one agent for
 * good). Nothing else of an admission is kept, as it may have changed since.
 */
type KnownToken = Pick<AgentPrincipal, "agentId" | "tokenId">;
const admittedTokens = new BoundedMap<string, KnownToken>(10_000);

/**
 * A call's admission made inside its send's one statement (decision 0083): the admission's
 * CTEs, the condition that they let the call in (the token, its agent, owner and standing as
 * `authorizeAgentRequest` requires, and the request within the per-minute limit), and where
 * the agent stands once the statement committed. The send sequence takes it from
 * `CoreDeps.admitInSend`; when the send cannot go out as that statement, or its condition does
 * not hold, nothing was changed and the call is let in the plain way first (`AdmitFirst`).
 */
export class AdmissionInSend {
  /** Set once the statement that let the call in has committed. */
  rate: RateState | undefined;
  private readonly now: Date;

  /**
   * The call's principal: the agent its token named when this process last let it in (a token
   * names one agent for good), its `rate` known once the statement committed. It holds no
   * profile: what the last admission read may have changed since, and a send reads only who.
   */
  readonly principal: AdmittedAgent;

  private readonly tokenHash: string;

  constructor(
    private readonly deps: CoreDeps,
    known: KnownAgentToken,
    private readonly family: AddressFamily | null,
  ) {
    this.now = deps.clock.now();
    this.tokenHash = known.tokenHash;
    const admission = this;
    this.principal = {
      agentId: known.agentId,
      tokenId: known.tokenId,
      pauseReason: null,
      get rate() {
        return admission.rate as RateState;
      },
      get me(): AgentMe {
        throw new Error("a call let in by its send reads no profile: its route reads only who");
      },
    };
  }

  parts(pg: Sql) {
    const window = rateWindow(this.now, 60);
    const at = this.now.toISOString();
    return {
      ctes: admissionParts(pg, this.tokenHash, at, window, true, this.family),
      admitted: pg`(select agent_id from found) = ${this.principal.agentId}
        and (select count from hit) <= ${this.deps.config.LIMIT_REQUESTS_PER_MIN}::int`,
      requestCount: pg`(select count from hit)`,
    };
  }

  letIn(requestCount: number): void {
    const window = rateWindow(this.now, 60);
    this.rate = rateState(requestCount, this.deps.config.LIMIT_REQUESTS_PER_MIN, window);
  }
}

/** A token this process let in before: its hash, and the agent it names. */
export type KnownAgentToken = KnownToken & { tokenHash: string };

/** The token, if this process let it in before (`authorizeAgentRequest`); else undefined. */
export function knownAgentToken(token: string): KnownAgentToken | undefined {
  const tokenHash = hashSecret(token);
  const known = admittedTokens.get(tokenHash);
  return known && { ...known, tokenHash };
}

/** The admission of a call by a known token that its send may let in (`AdmissionInSend`). */
export function admissionInSend(
  deps: CoreDeps,
  known: KnownAgentToken,
  client: { family?: AddressFamily | null } = {},
): AdmissionInSend {
  return new AdmissionInSend(deps, known, client.family ?? null);
}
