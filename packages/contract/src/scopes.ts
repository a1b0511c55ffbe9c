import { z } from "zod";

/** Agent scopes, in consent-card order. */
export const agentScopes = [
  "messages:read",
  "messages:write",
  "emails:read",
  "emails:write",
  "tasks:read",
  "tasks:write",
  "reminders:read",
  "reminders:write",
  "events:read",
  "events:write",
  "notes:read",
  "notes:write",
  "calls:read",
] as const;
export const AgentScope = z.enum(agentScopes);
export type AgentScope = z.infer<typeof AgentScope>;

/** Sorts and de-duplicates scopes into consent-card order. */
export function inConsentOrder(scopes: Iterable<AgentScope>): AgentScope[] {
  const wanted = new Set(scopes);
  return agentScopes.filter((scope) => wanted.has(scope));
}

export const devScopes = ["self-chat:write"] as const;
export const DevScope = z.enum(devScopes);
export type DevScope = z.infer<typeof DevScope>;
