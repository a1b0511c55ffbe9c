/**
 * The TypeScript client agents use. It arrives with the agent developer kit; until then agents
 * call the REST API directly with the shapes in @switchboard/contract.
 */
export type { AgentMe, AgentUpdateMeRequest, ApiError } from "@switchboard/contract";
