import { z } from "zod";
import { DateTime } from "./common";
import { DevScope } from "./scopes";
import { AgentMe } from "./users";

/** What an owner's console shows about the agents, tokens and keys they own. */

/** An agent as its owner sees it: its profile and whether (and why) it is paused. */
export const OwnedAgent = AgentMe.extend({
  paused: z.object({ at: DateTime, reason: z.string() }).nullable(),
});
export type OwnedAgent = z.infer<typeof OwnedAgent>;

/** What an owner may call a token or key at minting, to tell them apart. */
export const CredentialName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}]*$/u, "must not contain control characters");

/** An agent token as listed after minting: never the token, only its last characters. */
export const AgentTokenInfo = z.object({
  id: z.string(),
  hint: z.string(),
  name: z.string().nullable(),
  createdAt: DateTime,
  expiresAt: DateTime.nullable(),
  revokedAt: DateTime.nullable(),
  /** Updated at most once a minute, so it may be up to a minute behind. */
  lastUsedAt: DateTime.nullable(),
  /** The address family the last call came from. */
  lastUsedFamily: z.enum(["ipv4", "ipv6"]).nullable(),
});
export type AgentTokenInfo = z.infer<typeof AgentTokenInfo>;

/** A developer key as listed after creation. */
export const DeveloperKeyInfo = AgentTokenInfo.extend({ scopes: z.array(DevScope) });
export type DeveloperKeyInfo = z.infer<typeof DeveloperKeyInfo>;

/** One per-minute limit right now. */
export const RateReading = z.object({
  count: z.number().int(),
  limit: z.number().int(),
  resetSeconds: z.number().int(),
});
export type RateReading = z.infer<typeof RateReading>;

/** The three daily counters, as used and as ceilings. */
export const DailyCounts = z.object({
  messages: z.number().int(),
  proposals: z.number().int(),
  refused: z.number().int(),
});
export type DailyCounts = z.infer<typeof DailyCounts>;

/** Today's usage (UTC day) against each ceiling, and this minute's rates. */
export const AgentUsage = z.object({
  day: z.string(),
  usage: DailyCounts,
  ceilings: DailyCounts,
  perMinute: z.object({ requests: RateReading, messages: RateReading }),
});
export type AgentUsage = z.infer<typeof AgentUsage>;
