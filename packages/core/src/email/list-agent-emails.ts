import type { AgentEmailThread } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { readAgentThreads, toAgentEmailThreads } from "./agent-threads";

/**
 * `GET /emails`: the agent's 1:1 threads, newest activity first, never hidden (a person who
 * removed the agent shows with `grantedScopes: []`); group threads are not listed. The last
 * email and the subject are masked by the person's grant as it is now. Needs no grant.
 */
export async function listAgentEmails(
  deps: CoreDeps,
  agentId: string,
): Promise<{ threads: AgentEmailThread[] }> {
  const rows = await readAgentThreads(deps.db, agentId);
  return { threads: await toAgentEmailThreads(deps.db, agentId, rows) };
}
