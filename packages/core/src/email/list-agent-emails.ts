import type { AgentEmailsResponse, PageQuery } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { readAgentThreadPage, toAgentEmailThreads } from "./agent-threads";

/**
 * `GET /emails`: the agent's 1:1 threads, newest activity first, never hidden (a person who
 * removed the agent shows with `grantedScopes: []`); group threads are not listed. The last
 * email and the subject are masked by the person's grant as it is now. Needs no grant. A page
 * of `limit` threads at a time, from after the thread `before` (404 if not one of the agent's).
 */
export async function listAgentEmails(
  deps: CoreDeps,
  agentId: string,
  page: PageQuery = { limit: 50 },
): Promise<AgentEmailsResponse> {
  const { rows, hasMore } = await readAgentThreadPage(deps, agentId, page);
  return { threads: await toAgentEmailThreads(deps.db, agentId, rows), hasMore };
}
