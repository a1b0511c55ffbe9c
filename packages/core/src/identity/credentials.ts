import { CredentialName } from "@switchboard/contract";
import { parseInput } from "../errors";

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

/** The address family a call came from, kept as a token's or key's "last used from". */
export type AddressFamily = "ipv4" | "ipv6";

/** A token's or key's optional name, trimmed; empty means unnamed. */
export function credentialName(name: string | null | undefined): string | null {
  if (name === undefined || name === null || name.trim() === "") return null;
  return parseInput(CredentialName, name, "name");
}
