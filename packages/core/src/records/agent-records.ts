import { type AgentScope, MAX_RECORDS_PER_LIST } from "@switchboard/contract";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { listOwnRecords } from "./person-records";
import type { RecordOf, RecordType } from "./projections";

/**
 * `GET /conversations/{id}/tasks|reminders|events|notes`: the other participant's
 * non-archived records, newest first, at most 200, with their `<surface>:read`.
 */
export async function listRecordsForAgent<T extends RecordType>(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  type: T,
): Promise<RecordOf[T][]> {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId },
    { scope: `${type}s:read` as AgentScope },
  );
  return listOwnRecords(deps, access.person.id, type, MAX_RECORDS_PER_LIST);
}
