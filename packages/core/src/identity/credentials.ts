/** The two bearer credential kinds and the prefixes of the secrets behind them. */
export const AGENT_TOKEN_PREFIX = "sbat_";
export const DEVELOPER_KEY_PREFIX = "sbdk_";

export type Credential =
  | { kind: "agent"; secret: string }
  | { kind: "dev"; secret: string }
  | { kind: "other" }
  | { kind: "none" };

/**
 * Reads `Authorization: Bearer agent:<token>` or `Bearer dev:<key>`. Anything else present
 * (another scheme, a bare bearer value, a session) is `other`, which every surface refuses.
 */
export function parseAuthorization(header: string | null | undefined): Credential {
  if (!header?.trim()) return { kind: "none" };
  const match = /^Bearer\s+(agent|dev):(\S+)$/i.exec(header.trim());
  if (!match?.[1] || !match[2]) return { kind: "other" };
  return { kind: match[1].toLowerCase() as "agent" | "dev", secret: match[2] };
}
