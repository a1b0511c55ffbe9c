import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { findPersonChat } from "./person-chat";

const { agents, users } = schema;

/** What a person's chat header says about the agent beyond its name and number. */
export interface ChatAgentProfile {
  bio: string | null;
  /** Paused by its owner or at a daily ceiling: it cannot answer until the owner resumes it. */
  paused: boolean;
  /** Who runs it (the owner's display name), when the owner account still exists. */
  owner: { displayName: string | null } | null;
}

const owner = alias(users, "owner");

/**
 * The agent of one of a person's chats, as the chat header shows it: its bio, whether it is
 * paused (not why: a ceiling is the owner's business), and its owner's name. Only for a person
 * with a chat with that agent (`not_found` otherwise).
 */
export async function describeChatAgent(
  deps: CoreDeps,
  userRef: string,
  chatRef: string,
): Promise<ChatAgentProfile> {
  const chat = await findPersonChat(deps, userRef, chatRef);
  const [row] = await deps.db
    .select({ pausedAt: agents.pausedAt, ownerName: owner.displayName, ownerId: owner.id })
    .from(agents)
    .leftJoin(owner, eq(owner.id, agents.ownerId))
    .where(eq(agents.id, chat.agent.id));
  if (!row) throw new CoreError("not_found", `no agent ${chat.agent.id}`);
  return {
    bio: chat.agent.bio,
    paused: row.pausedAt !== null,
    owner: row.ownerId ? { displayName: row.ownerName } : null,
  };
}
