import type { PersonConversation } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { findUser } from "../identity/users";
import { loadPersonConversations } from "./person-chat";

/**
 * A person's chats with agents for the console's chat list, newest activity first: the agent,
 * whether it is a contact, requested and granted scopes, initiation, block, the last message,
 * unread count and the agent's typing state. Chats stay listed after the agent is removed.
 */
export async function listPersonConversations(
  deps: CoreDeps,
  userRef: string,
): Promise<PersonConversation[]> {
  const user = await findUser(deps, userRef);
  return loadPersonConversations(deps, user.id);
}
