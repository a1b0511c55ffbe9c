import {
  type DeveloperKeyInfo,
  type DevMe,
  type DevScope,
  DevScope as DevScopeSchema,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { newId } from "../ids";
import { hashSecret, newSecret, secretHint } from "../secrets";
import { type AddressFamily, credentialName, DEVELOPER_KEY_PREFIX } from "./credentials";
import { findUser } from "./users";

const { developerKeys } = schema;

function toKeyInfo(row: typeof developerKeys.$inferSelect): DeveloperKeyInfo {
  return {
    id: row.id,
    hint: row.hint,
    name: row.name,
    scopes: row.scopes as DevScope[],
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    lastUsedFamily: row.lastUsedFamily,
  };
}

/** Creates a key for a person or business; the raw key is returned this once. */
export async function createDeveloperKey(
  deps: CoreDeps,
  userRef: string,
  options: { scopes: string[]; expiresAt?: Date | null; name?: string | null },
): Promise<{ key: string; info: DeveloperKeyInfo }> {
  // A key may carry no scope at all: it can then only read `GET /v1/me`.
  const scopes = parseInput(z.array(DevScopeSchema), options.scopes, "scopes");
  const name = credentialName(options.name);
  const user = await findUser(deps, userRef);
  if (user.userType !== "person" && user.userType !== "business")
    throw new CoreError("validation_error", "developer keys belong to people and businesses");
  const now = deps.clock.now();
  if (options.expiresAt && options.expiresAt <= now)
    throw new CoreError("validation_error", "expiry must be in the future");
  const key = newSecret(DEVELOPER_KEY_PREFIX);
  const [row] = await deps.db
    .insert(developerKeys)
    .values({
      id: newId("dk"),
      userId: user.id,
      keyHash: hashSecret(key),
      hint: secretHint(key),
      name,
      scopes: [...new Set(scopes)],
      createdAt: now,
      expiresAt: options.expiresAt ?? null,
    })
    .returning();
  return { key, info: toKeyInfo(row as typeof developerKeys.$inferSelect) };
}

export async function listDeveloperKeys(deps: CoreDeps, userId: string) {
  const rows = await deps.db
    .select()
    .from(developerKeys)
    .where(eq(developerKeys.userId, userId))
    .orderBy(desc(developerKeys.createdAt));
  return rows.map(toKeyInfo);
}

/** Revokes by raw key (operator CLI) or by id within its owner (console). Idempotent. */
export async function revokeDeveloperKey(
  deps: CoreDeps,
  which: { key: string } | { keyId: string; userId: string },
): Promise<void> {
  const where =
    "key" in which
      ? eq(developerKeys.keyHash, hashSecret(which.key))
      : and(eq(developerKeys.id, which.keyId), eq(developerKeys.userId, which.userId));
  const [row] = await deps.db.select({ id: developerKeys.id }).from(developerKeys).where(where);
  if (!row) throw new CoreError("not_found", "no such key");
  await deps.db
    .update(developerKeys)
    .set({ revokedAt: deps.clock.now() })
    .where(and(eq(developerKeys.id, row.id), isNull(developerKeys.revokedAt)));
}

export interface DeveloperPrincipal {
  keyId: string;
  userId: string;
  scopes: DevScope[];
  suspended: boolean;
}

/**
 * Resolves a raw developer key in one statement; throws the Developer API's 401 codes. The
 * same statement writes a valid key's "last used" at most once a minute (or when the address
 * family changes), committing without waiting for the WAL flush like the agent auth statement:
 * a lost "last used" is harmless. It must run on its own, never inside a caller's transaction.
 */
export async function authenticateDeveloper(
  deps: CoreDeps,
  key: string,
  client: { family?: AddressFamily | null } = {},
): Promise<DeveloperPrincipal> {
  const now = deps.clock.now().toISOString();
  const family = client.family ?? null;
  const rows = await deps.db.execute<Record<string, unknown>>(sql`
    with async_commit as (select set_config('synchronous_commit', 'off', true)),
    found as (
      select k.id as key_id, k.scopes, k.expires_at, k.revoked_at, u.id as user_id,
             u.suspended_at
      from developer_keys k
      join users u on u.id = k.user_id
      where k.key_hash = ${hashSecret(key)}
    ), used as (
      update developer_keys k
      set last_used_at = ${now}::timestamptz,
          last_used_family = coalesce(${family}::address_family, k.last_used_family)
      from found
      where k.id = found.key_id and found.revoked_at is null
        and (found.expires_at is null or found.expires_at > ${now}::timestamptz)
        and (k.last_used_at is null
          or k.last_used_at <= ${now}::timestamptz - interval '1 minute'
          or k.last_used_family is distinct from coalesce(${family}::address_family, k.last_used_family))
    )
    select found.*, (select 1 from async_commit) as async_commit from found`);
  const row = rows[0] as
    | {
        key_id: string;
        scopes: string[];
        expires_at: Date | string | null;
        revoked_at: Date | string | null;
        user_id: string;
        suspended_at: Date | string | null;
      }
    | undefined;
  if (!row) throw new CoreError("unauthorized", "The developer key is not valid");
  if (row.revoked_at) throw new CoreError("key_revoked", "The developer key was revoked");
  if (row.expires_at && new Date(row.expires_at) <= deps.clock.now())
    throw new CoreError("key_expired", "The developer key has expired");
  return {
    keyId: row.key_id,
    userId: row.user_id,
    scopes: row.scopes as DevScope[],
    suspended: row.suspended_at !== null,
  };
}

export async function getDevMe(deps: CoreDeps, principal: DeveloperPrincipal): Promise<DevMe> {
  const user = await findUser(deps, principal.userId);
  return {
    id: user.id,
    num: user.num,
    displayName: user.displayName,
    avatarUrl: user.avatarUrl,
    userType: user.userType === "business" ? "business" : "person",
    scopes: principal.scopes,
  };
}
