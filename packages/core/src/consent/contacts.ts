import { type AgentScope, AgentScope as AgentScopeSchema } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { appendEvents } from "../events/append-event";
import { notifyTopics } from "../events/notifier";
import { findAgent } from "../identity/agents";
import { findUser, toAgentUser } from "../identity/users";
import { ensureDirectConversation } from "../messaging/conversations";

const { agentContacts, userContacts } = schema;

/** What a person does on an agent's consent card and in its settings (console and CLI). */

async function person(deps: CoreDeps, ref: string) {
  const user = await findUser(deps, ref);
  if (user.userType === "agent") throw new CoreError("forbidden", "Agents do not add agents");
  return user;
}

/** The person's row for the agent, created (with their conversation) on first use. */
async function standing(tx: Tx, userId: string, agentId: string, now: Date) {
  const conversationId = await ensureDirectConversation(tx, userId, agentId, now);
  await tx
    .insert(agentContacts)
    .values({ userId, agentId, conversationId, createdAt: now, updatedAt: now })
    .onConflictDoNothing();
  const [row] = await tx
    .select()
    .from(agentContacts)
    .where(and(eq(agentContacts.userId, userId), eq(agentContacts.agentId, agentId)))
    .for("update");
  return row as typeof agentContacts.$inferSelect;
}

function checkGrant(grant: string[], requested: AgentScope[]): AgentScope[] {
  const scopes = parseInput(z.array(AgentScopeSchema), grant, "grant");
  const unrequested = scopes.filter((scope) => !requested.includes(scope));
  if (unrequested.length > 0)
    throw new CoreError("validation_error", `The agent did not request ${unrequested.join(", ")}`, {
      issues: [{ path: "grant", message: `not requested by the agent: ${unrequested.join(", ")}` }],
    });
  return requested.filter((scope) => scopes.includes(scope));
}

/**
 * Adds an agent as a contact through its consent card, granting some or all requested scopes.
 * The agent's request privacy decides who may: everyone; nobody but its owner; or its owner and
 * people with a contact who has already added it.
 */
export async function addContact(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  grant: string[],
): Promise<{ conversationId: string; grantedScopes: AgentScope[] }> {
  const user = await person(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  const scopes = checkGrant(grant, agent.requestedScopes);
  if (user.suspendedAt) throw new CoreError("forbidden", "Your account is suspended");
  if (agent.ownerId !== user.id && agent.requestPrivacy !== "everyone") {
    const allowed =
      agent.requestPrivacy === "contacts_of_contacts" &&
      (
        await deps.db
          .select({ one: sql`1` })
          .from(userContacts)
          .innerJoin(agentContacts, eq(agentContacts.userId, userContacts.contactId))
          .where(
            and(
              eq(userContacts.userId, user.id),
              eq(agentContacts.agentId, agent.id),
              isNotNull(agentContacts.addedAt),
            ),
          )
          .limit(1)
      ).length > 0;
    if (!allowed)
      throw new CoreError(
        "forbidden",
        agent.requestPrivacy === "nobody"
          ? "This agent does not accept new contacts"
          : "Only contacts of this agent's contacts may add it",
      );
  }
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const row = await standing(tx, user.id, agent.id, now);
    await tx
      .update(agentContacts)
      .set({ addedAt: row.addedAt ?? now, grantedScopes: scopes, updatedAt: now })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    await notifyTopics(tx, [`user:${user.id}`]);
    if (!row.addedAt)
      await appendEvents(tx, now, [
        { agentId: agent.id, type: "contact.added", payload: { user: toAgentUser(user), scopes } },
      ]);
    return { conversationId: row.conversationId, grantedScopes: scopes };
  });
}

/** Removes the agent from contacts: the grant goes; the conversation and settings stay. */
export async function removeContact(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
): Promise<void> {
  const user = await person(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const removed = await tx
      .update(agentContacts)
      .set({ addedAt: null, grantedScopes: [], updatedAt: now })
      .where(
        and(
          eq(agentContacts.userId, user.id),
          eq(agentContacts.agentId, agent.id),
          isNotNull(agentContacts.addedAt),
        ),
      )
      .returning({ userId: agentContacts.userId });
    if (removed.length === 0)
      throw new CoreError("not_found", "This agent is not in your contacts");
    await notifyTopics(tx, [`user:${user.id}`]);
  });
}

/** Changes the grant; only requested scopes, only for a contact. */
export async function setGrant(deps: CoreDeps, userRef: string, agentRef: string, grant: string[]) {
  const user = await person(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  const scopes = checkGrant(grant, agent.requestedScopes);
  const now = deps.clock.now();
  const updated = await deps.db
    .update(agentContacts)
    .set({ grantedScopes: scopes, updatedAt: now })
    .where(
      and(
        eq(agentContacts.userId, user.id),
        eq(agentContacts.agentId, agent.id),
        isNotNull(agentContacts.addedAt),
      ),
    )
    .returning({ userId: agentContacts.userId });
  if (updated.length === 0)
    throw new CoreError("not_found", "Add the agent before granting scopes");
  return { grantedScopes: scopes };
}

/** Per-agent settings that hold whether or not the agent is a contact. */
async function setSetting(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  change: Partial<Pick<typeof agentContacts.$inferInsert, "initiation" | "blockedAt">>,
) {
  const user = await person(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await standing(tx, user.id, agent.id, now);
    await tx
      .update(agentContacts)
      .set({ ...change, updatedAt: now })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    await notifyTopics(tx, [`user:${user.id}`]);
  });
}

export const setInitiation = (
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  mode: "any" | "reply_only",
) =>
  setSetting(deps, userRef, agentRef, {
    initiation: parseInput(z.enum(["any", "reply_only"]), mode, "mode"),
  });

export const blockAgent = (deps: CoreDeps, userRef: string, agentRef: string) =>
  setSetting(deps, userRef, agentRef, { blockedAt: deps.clock.now() });

export const unblockAgent = (deps: CoreDeps, userRef: string, agentRef: string) =>
  setSetting(deps, userRef, agentRef, { blockedAt: null });

/** A person-to-person contact (what `contacts_of_contacts` privacy looks at). */
export async function addUserContact(
  deps: CoreDeps,
  userRef: string,
  contactRef: string,
): Promise<void> {
  const user = await person(deps, userRef);
  const contact = await person(deps, contactRef);
  await deps.db
    .insert(userContacts)
    .values({ userId: user.id, contactId: contact.id, createdAt: deps.clock.now() })
    .onConflictDoNothing();
}
