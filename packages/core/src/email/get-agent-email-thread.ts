import type { AgentEmailThreadResponse, PageQuery } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { toAgentUser } from "../identity/users";
import {
  checkAgentThread,
  readAgentThread,
  toAgentEmailThread,
  toAgentEmailThreads,
} from "./agent-threads";
import { mayReadEmails, toAgentEmailMessage } from "./email-shape";
import { markThreadRead, readThreadEmailPage } from "./threads";

/**
 * `GET /emails/{threadId}`: a 1:1 thread of the agent with a page of its emails (the newest
 * `limit`, or those before the email `before`), oldest first within the page; the
 * person's emails masked without their `emails:read` (and the subject, when they started the
 * thread); the agent's own always readable. Marks the thread read for the agent, so the answer
 * (and `GET /emails`) shows `unreadCount` 0. 404 for a thread it is not in, 400 `unsupported`
 * for a group thread.
 */
export async function getAgentEmailThread(
  deps: CoreDeps,
  agentId: string,
  threadId: string,
  page: PageQuery = { limit: 50 },
): Promise<AgentEmailThreadResponse> {
  await checkAgentThread(deps, agentId, threadId);
  await markThreadRead(deps.db, threadId, agentId);
  const { emails, hasMore } = await readThreadEmailPage(deps, threadId, page);
  const row = await readAgentThread(deps, agentId, threadId);
  const readable = mayReadEmails(row.contact, row.person);
  const person = toAgentUser(row.person);
  // The first page ends with the thread's last email; an older page reads it on its own.
  const [thread] = page.before
    ? await toAgentEmailThreads(deps.db, agentId, [row])
    : [toAgentEmailThread(agentId, row, emails.at(-1) ?? null)];
  return {
    thread: thread as AgentEmailThreadResponse["thread"],
    messages: emails.map((email) => toAgentEmailMessage(email, agentId, person, readable)),
    hasMore,
  };
}
