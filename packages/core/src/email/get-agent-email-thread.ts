import type { AgentEmailThreadResponse } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { toAgentUser } from "../identity/users";
import { checkAgentThread, readAgentThread, toAgentEmailThread } from "./agent-threads";
import { mayReadEmails, toAgentEmailMessage } from "./email-shape";
import { markThreadRead, readThreadEmails } from "./threads";

/**
 * `GET /emails/{threadId}`: a 1:1 thread of the agent with every email, oldest first; the
 * person's emails masked without their `emails:read` (and the subject, when they started the
 * thread); the agent's own always readable. Marks the thread read for the agent, so the answer
 * (and `GET /emails`) shows `unreadCount` 0. 404 for a thread it is not in, 400 `unsupported`
 * for a group thread.
 */
export async function getAgentEmailThread(
  deps: CoreDeps,
  agentId: string,
  threadId: string,
): Promise<AgentEmailThreadResponse> {
  await checkAgentThread(deps, agentId, threadId);
  await markThreadRead(deps.db, threadId, agentId);
  const emails = await readThreadEmails(deps, threadId);
  const row = await readAgentThread(deps, agentId, threadId);
  const readable = mayReadEmails(row.contact, row.person);
  const person = toAgentUser(row.person);
  return {
    thread: toAgentEmailThread(agentId, row, emails.at(-1) ?? null),
    messages: emails.map((email) => toAgentEmailMessage(email, agentId, person, readable)),
  };
}
