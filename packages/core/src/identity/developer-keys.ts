import {
  type DeveloperKeyInfo,
  type DevMe,
  type DevScope,
  DevScope as DevScopeSchema,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { newId } from "../ids";
import { hashSecret, newSecret, secretHint } from "../secrets";
import { DEVELOPER_KEY_PREFIX } from "./credentials";
import { findUser } from "./users";

const { developerKeys, users } = schema;

function toKeyInfo(row: typeof developerKeys.$inferSelect): DeveloperKeyInfo {
  return {
    id: row.id,
    hint: row.hint,
    scopes: row.scopes as DevScope[],
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a key for a person or business; the raw key is returned this once. */
export async function createDeveloperKey(
  deps: CoreDeps,
  userRef: string,
  options: { scopes: string[]; expiresAt?: Date | null },
): Promise<{ key: string; info: DeveloperKeyInfo }> {
  // A key may carry no scope at all: it can then only read `GET /v1/me`.
  const scopes = parseInput(z.array(DevScopeSchema), options.scopes, "scopes");
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

/** Resolves a raw developer key in one query; throws the Developer API's 401 codes. */
export async function authenticateDeveloper(
  deps: CoreDeps,
  key: string,
): Promise<DeveloperPrincipal> {
  const [row] = await deps.db
    .select({
      keyId: developerKeys.id,
      scopes: developerKeys.scopes,
      expiresAt: developerKeys.expiresAt,
      revokedAt: developerKeys.revokedAt,
      userId: users.id,
      suspendedAt: users.suspendedAt,
    })
    .from(developerKeys)
    .innerJoin(users, eq(users.id, developerKeys.userId))
    .where(eq(developerKeys.keyHash, hashSecret(key)));
  if (!row) throw new CoreError("unauthorized", "The developer key is not valid");
  if (row.revokedAt) throw new CoreError("key_revoked", "The developer key was revoked");
  if (row.expiresAt && row.expiresAt <= deps.clock.now())
    throw new CoreError("key_expired", "The developer key has expired");
  return {
    keyId: row.keyId,
    userId: row.userId,
    scopes: row.scopes as DevScope[],
    suspended: row.suspendedAt !== null,
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
