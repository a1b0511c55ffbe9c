import { type AgentScope, AgentScope as AgentScopeSchema } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { findUser } from "../identity/users";
import { ensureDirectConversation } from "./conversations";

const { agentContacts } = schema;

export type ContactRow = typeof agentContacts.$inferSelect;

/** The person acting in the apps; agents do not add agents. */
export async function findPerson(deps: CoreDeps, ref: string) {
  const user = await findUser(deps, ref);
  if (user.userType === "agent")
    throw new CoreError("forbidden", "Agents cannot add or manage agents as contacts");
  return user;
}

/** A suspended person can change nothing. */
export function assertActive(user: { suspendedAt: Date | null }): void {
  if (user.suspendedAt) throw new CoreError("account_suspended", "Your account is suspended");
}

/**
 * The person's row for the agent, locked for this transaction and created on first use. An add
 * (`withConversation`) also makes their one 1:1 conversation; a setting alone (block,
 * reply-only) does not, so an agent the person never added sees nothing of them.
 */
export async function lockStanding(
  tx: Tx,
  userId: string,
  agentId: string,
  now: Date,
  options: { withConversation: true },
): Promise<ContactRow & { conversationId: string }>;
export async function lockStanding(
  tx: Tx,
  userId: string,
  agentId: string,
  now: Date,
): Promise<ContactRow>;
export async function lockStanding(
  tx: Tx,
  userId: string,
  agentId: string,
  now: Date,
  options: { withConversation?: boolean } = {},
): Promise<ContactRow> {
  await tx
    .insert(agentContacts)
    .values({ userId, agentId, createdAt: now, updatedAt: now })
    .onConflictDoNothing();
  const where = and(eq(agentContacts.userId, userId), eq(agentContacts.agentId, agentId));
  const [row] = await tx.select().from(agentContacts).where(where).for("update");
  if (!row) throw new Error(`agent_contacts row ${userId}/${agentId} vanished`);
  if (!options.withConversation || row.conversationId) return row;
  const conversationId = await ensureDirectConversation(tx, userId, agentId, now);
  await tx.update(agentContacts).set({ conversationId }).where(where);
  return { ...row, conversationId };
}

/**
 * A grant from the consent card: valid scopes, all of them requested by the agent (asking for
 * any other is a validation error), answered in consent-card order.
 */
export function checkGrant(
  grant: readonly string[],
  requested: readonly AgentScope[],
): AgentScope[] {
  const scopes = parseInput(z.array(AgentScopeSchema), grant, "grant");
  const unrequested = scopes.filter((scope) => !requested.includes(scope));
  if (unrequested.length > 0)
    throw new CoreError(
      "validation_error",
      `The agent did not request ${unrequested.join(", ")}; a grant holds only requested scopes`,
      {
        issues: [
          { path: "grant", message: `not requested by the agent: ${unrequested.join(", ")}` },
        ],
      },
    );
  return requested.filter((scope) => scopes.includes(scope));
}
