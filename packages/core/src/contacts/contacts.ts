import {
  type AgentScope,
  type AgentUser,
  type ConsentCard,
  inConsentOrder,
} from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { rejectPendingProposals } from "../actions/decide-action";
import { assertActive, checkGrant, findPerson, lockStanding } from "../consent/contact-standing";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { controlTopic } from "../events/agent-control";
import { appendEvents } from "../events/append-event";
import { notifyTopics, userTopic } from "../events/notifier";
import { findAgent, type OwnedAgent } from "../identity/agents";
import { findUser, toAgentUser } from "../identity/users";

const { agentContacts, events, userContacts, users, webhookDeliveries } = schema;

/** A person's contact list: adding an agent through its consent card, its grant, removing it. */

/**
 * A person adds an agent through its consent card, granting some or all of the scopes it
 * requests. The agent's request privacy decides who may: `everyone`; `nobody` but its owner;
 * `contacts_of_contacts`: its owner, or a person with a contact who has the agent added.
 * Creates (or reuses) their one 1:1 conversation. The first add, and every re-add after a
 * removal, tells the agent `contact.added { user, scopes }` in the same transaction; adding an
 * agent that is already a contact only replaces the grant.
 */
export async function addContact(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  grant: readonly AgentScope[] | readonly string[],
): Promise<{ conversationId: string; grantedScopes: AgentScope[] }> {
  const user = await findPerson(deps, userRef);
  assertActive(user);
  const agent = await findAgent(deps, agentRef);
  const scopes = checkGrant(grant, agent.requestedScopes);
  await assertMayAdd(deps, user.id, agent);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const standing = await lockStanding(tx, user.id, agent.id, now, { withConversation: true });
    await tx
      .update(agentContacts)
      .set({ addedAt: standing.addedAt ?? now, grantedScopes: scopes, updatedAt: now })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    await notifyTopics(tx, [userTopic(user.id, "chats")]);
    if (!standing.addedAt)
      await appendEvents(tx, now, [
        {
          agentId: agent.id,
          personId: user.id,
          type: "contact.added",
          payload: { user: toAgentUser(user), scopes },
        },
      ]);
    return { conversationId: standing.conversationId, grantedScopes: scopes };
  });
}

async function assertMayAdd(deps: CoreDeps, userId: string, agent: OwnedAgent): Promise<void> {
  const refusal = await whyMayNotAdd(deps, userId, agent);
  if (refusal) throw new CoreError("forbidden", refusal);
}

/** Why the agent's request privacy keeps this person from adding it; null when it does not. */
async function whyMayNotAdd(
  deps: CoreDeps,
  userId: string,
  agent: OwnedAgent,
): Promise<string | null> {
  if (agent.requestPrivacy === "everyone" || agent.ownerId === userId) return null;
  if (agent.requestPrivacy === "nobody")
    return "This agent accepts no new contacts (only its owner may add it)";
  const [viaContact] = await deps.db
    .select({ one: sql`1` })
    .from(userContacts)
    .innerJoin(agentContacts, eq(agentContacts.userId, userContacts.contactId))
    .where(
      and(
        eq(userContacts.userId, userId),
        eq(agentContacts.agentId, agent.id),
        isNotNull(agentContacts.addedAt),
      ),
    )
    .limit(1);
  return viaContact
    ? null
    : "This agent accepts contacts of its contacts only: none of your contacts has added it";
}

/**
 * The consent card of an agent for one person (console: find an agent by number, then add it):
 * the agent, the scopes it requests, whether this person may add it, and their current standing.
 */
export async function getConsentCard(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
): Promise<ConsentCard> {
  const user = await findPerson(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  const [standing] = await deps.db
    .select()
    .from(agentContacts)
    .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
  const isContact = Boolean(standing?.addedAt);
  const refusal = isContact ? null : await whyMayNotAdd(deps, user.id, agent);
  const [owner] = agent.ownerId
    ? await deps.db
        .select({ displayName: users.displayName })
        .from(users)
        .where(eq(users.id, agent.ownerId))
    : [];
  return {
    agent: {
      id: agent.id,
      num: agent.num,
      displayName: agent.displayName,
      avatarUrl: agent.avatarUrl,
      userType: "agent",
      bio: agent.bio,
    },
    owner: owner ?? null,
    requestedScopes: agent.requestedScopes,
    requestPrivacy: agent.requestPrivacy,
    mayAdd: refusal === null,
    refusal,
    isContact,
    grantedScopes: isContact ? inConsentOrder((standing?.grantedScopes ?? []) as AgentScope[]) : [],
    blocked: Boolean(standing?.blockedAt),
    conversationId: standing?.conversationId ?? null,
  };
}

/**
 * A person-to-person contact (one direction: `userRef` has `contactRef` in their contacts; the
 * console adds one by number, the CLI `contact add --user A --person B`). It is what
 * `contacts_of_contacts` request privacy looks at. Adding one already there changes nothing.
 */
export async function addUserContact(
  deps: CoreDeps,
  userRef: string,
  contactRef: string,
): Promise<{ contact: AgentUser }> {
  const user = await findPerson(deps, userRef);
  assertActive(user);
  const contact = await findUser(deps, contactRef);
  if (contact.userType === "agent")
    throw new CoreError(
      "validation_error",
      "That number is an agent's: add it through its consent card",
      {
        issues: [{ path: "person", message: "names an agent" }],
      },
    );
  if (user.id === contact.id)
    throw new CoreError("validation_error", "You are not your own contact", {
      issues: [{ path: "person", message: "names you" }],
    });
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(userContacts)
      .values({ userId: user.id, contactId: contact.id, createdAt: deps.clock.now() })
      .onConflictDoNothing();
    await notifyTopics(tx, [userTopic(user.id, "chats")]);
  });
  return { contact: toAgentUser(contact) };
}

/**
 * Removes the agent from the person's contacts: the grant, `addedAt` and the create skills
 * they let it auto-execute go, so every call toward them is refused, and their `contact.added`
 * events leave the agent's log (the spec: "removed when the contact is removed") with any
 * delivery still waiting for them. Events about them read as nothing granted from now on
 * (event-visibility.ts). The row (with block and initiation settings, which only restrict) and
 * the conversation with its history stay; a re-add is a fresh add with a new `contact.added`.
 * Its proposals still pending are rejected with the removal.
 */
export async function removeContact(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
): Promise<void> {
  const user = await findPerson(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  await changeAddedContact(
    deps,
    user.id,
    agent.id,
    { addedAt: null, grantedScopes: [], autoExecuteSkills: [] },
    "This agent is not in your contacts",
    async (tx) => {
      await rejectPendingProposals(tx, agent.id, user.id, deps.clock.now());
      const gone = await tx
        .delete(events)
        .where(
          and(
            eq(events.agentId, agent.id),
            eq(events.personId, user.id),
            eq(events.type, "contact.added"),
          ),
        )
        .returning({ id: events.id });
      if (gone.length > 0)
        await tx.delete(webhookDeliveries).where(
          and(
            eq(webhookDeliveries.agentId, agent.id),
            inArray(
              webhookDeliveries.eventId,
              gone.map((event) => event.id),
            ),
          ),
        );
    },
  );
}

/**
 * Replaces the grant of an agent in the person's contacts with a subset of the scopes it
 * requests now. Later changes to the agent's requested scopes never touch a stored grant.
 */
export async function setGrant(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  grant: readonly AgentScope[] | readonly string[],
): Promise<{ grantedScopes: AgentScope[] }> {
  const user = await findPerson(deps, userRef);
  assertActive(user);
  const agent = await findAgent(deps, agentRef);
  const scopes = checkGrant(grant, agent.requestedScopes);
  await changeAddedContact(
    deps,
    user.id,
    agent.id,
    { grantedScopes: scopes },
    "Add the agent to your contacts before granting scopes",
  );
  return { grantedScopes: scopes };
}

/** Changes the person's row for an agent that is in their contacts; `not_found` otherwise. */
async function changeAddedContact(
  deps: CoreDeps,
  userId: string,
  agentId: string,
  change: Partial<
    Pick<typeof agentContacts.$inferInsert, "addedAt" | "grantedScopes" | "autoExecuteSkills">
  >,
  notFound: string,
  also?: (tx: Tx) => Promise<void>,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const changed = await tx
      .update(agentContacts)
      .set({ ...change, updatedAt: deps.clock.now() })
      .where(
        and(
          eq(agentContacts.userId, userId),
          eq(agentContacts.agentId, agentId),
          isNotNull(agentContacts.addedAt),
        ),
      )
      .returning({ userId: agentContacts.userId });
    if (changed.length === 0) throw new CoreError("not_found", notFound);
    await also?.(tx);
    // The agent's open replies to this person are re-checked at once (controlTopic).
    await notifyTopics(tx, [userTopic(userId, "chats"), controlTopic(agentId)]);
  });
}
