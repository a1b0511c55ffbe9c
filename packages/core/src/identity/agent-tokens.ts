import { schema } from "@switchboard/db";
import { and, desc, eq, isNull } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { newId } from "../ids";
import { hashSecret, newSecret, secretHint } from "../secrets";
import { pausedMessage } from "./agents";
import { AGENT_TOKEN_PREFIX } from "./credentials";

const { agentTokens, agents, users } = schema;

export interface AgentTokenInfo {
  id: string;
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function toTokenInfo(row: typeof agentTokens.$inferSelect): AgentTokenInfo {
  return {
    id: row.id,
    hint: row.hint,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Mints a token; the raw token is returned this once and only its hash is kept. */
export async function mintAgentToken(
  deps: CoreDeps,
  agentId: string,
  options: { expiresAt?: Date | null } = {},
): Promise<{ token: string; info: AgentTokenInfo }> {
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
  const [row] = await deps.db.select({ id: agentTokens.id }).from(agentTokens).where(where);
  if (!row) throw new CoreError("not_found", "no such token");
  await deps.db
    .update(agentTokens)
    .set({ revokedAt: deps.clock.now() })
    .where(and(eq(agentTokens.id, row.id), isNull(agentTokens.revokedAt)));
}

/** Who is calling the Agent API, as far as the token tells. */
export interface AgentPrincipal {
  agentId: string;
  tokenId: string;
  /** Set while the agent is paused; the pipeline refuses every call with `agent_paused`. */
  pauseReason: string | null;
}

const owners = alias(users, "owners");

/**
 * Resolves a raw agent token in one query: token state, agent and owner account. Throws the
 * spec's 401 codes; pause is left to `assertAgentActive` so it answers 403, after auth.
 */
export async function authenticateAgent(deps: CoreDeps, token: string): Promise<AgentPrincipal> {
  const [row] = await deps.db
    .select({
      tokenId: agentTokens.id,
      expiresAt: agentTokens.expiresAt,
      revokedAt: agentTokens.revokedAt,
      agentId: agents.id,
      pausedAt: agents.pausedAt,
      pauseReason: agents.pauseReason,
      agentSuspendedAt: users.suspendedAt,
      ownerId: owners.id,
      ownerSuspendedAt: owners.suspendedAt,
    })
    .from(agentTokens)
    .innerJoin(agents, eq(agents.id, agentTokens.agentId))
    .innerJoin(users, eq(users.id, agents.id))
    .leftJoin(owners, eq(owners.id, agents.ownerId))
    .where(eq(agentTokens.tokenHash, hashSecret(token)));
  if (!row) throw new CoreError("unauthorized", "The agent token is not valid");
  if (row.revokedAt) throw new CoreError("token_revoked", "The agent token was revoked");
  if (row.expiresAt && row.expiresAt <= deps.clock.now())
    throw new CoreError("token_expired", "The agent token has expired");
  if (!row.ownerId || row.ownerSuspendedAt || row.agentSuspendedAt)
    throw new CoreError("unauthorized", "The agent's owner account is unavailable");
  return {
    agentId: row.agentId,
    tokenId: row.tokenId,
    pauseReason: row.pausedAt ? (row.pauseReason ?? "owner") : null,
  };
}

export function assertAgentActive(principal: AgentPrincipal): void {
  if (principal.pauseReason !== null)
    throw new CoreError("agent_paused", pausedMessage(principal.pauseReason));
}
