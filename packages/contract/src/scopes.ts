import { z } from "zod";
import { agentScopes, devScopes } from "./vocabulary";

export const AgentScope = z.enum(agentScopes);
export type AgentScope = z.infer<typeof AgentScope>;

export const DevScope = z.enum(devScopes);
export type DevScope = z.infer<typeof DevScope>;
