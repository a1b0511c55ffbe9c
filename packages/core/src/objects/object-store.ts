import { type Executor, schema } from "@switchboard/db";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { newId } from "../ids";

const { objects } = schema;

export interface StoredObject {
  id: string;
  ownerId: string;
  mimeType: string;
  size: number;
}

/**
 * Where media bytes live. The Postgres store works across every process with no setup; an
 * S3-compatible store can implement the same interface later.
 */
export interface ObjectStore {
  put(
    db: Executor,
    object: { ownerId: string; mimeType: string; bytes: Buffer; now: Date },
  ): Promise<StoredObject>;
  /** Metadata only; null when unknown. `deleted` when the bytes are gone. */
  head(db: Executor, id: string): Promise<(StoredObject & { deleted: boolean }) | null>;
  /** The bytes, or null when unknown or gone. */
  get(db: Executor, id: string): Promise<{ object: StoredObject; bytes: Buffer } | null>;
  /** At most `length` bytes from `start` (fewer past the end), read without the rest. */
  read(db: Executor, id: string, start: number, length: number): Promise<Buffer | null>;
  delete(db: Executor, id: string, now: Date): Promise<void>;
}

export const postgresObjectStore: ObjectStore = {
  async put(db, { ownerId, mimeType, bytes, now }) {
    const id = newId("obj");
    await db
      .insert(objects)
      .values({ id, ownerId, mimeType, size: bytes.length, data: bytes, createdAt: now });
    return { id, ownerId, mimeType, size: bytes.length };
  },
  async head(db, id) {
    const [row] = await db
      .select({
        id: objects.id,
        ownerId: objects.ownerId,
        mimeType: objects.mimeType,
        size: objects.size,
        deletedAt: objects.deletedAt,
      })
      .from(objects)
      .where(eq(objects.id, id));
    return row
      ? {
          id: row.id,
          ownerId: row.ownerId,
          mimeType: row.mimeType,
          size: row.size,
          deleted: row.deletedAt !== null,
        }
      : null;
  },
  async get(db, id) {
    const [row] = await db
      .select()
      .from(objects)
      .where(and(eq(objects.id, id), isNull(objects.deletedAt)));
    if (!row?.data) return null;
    return {
      object: { id: row.id, ownerId: row.ownerId, mimeType: row.mimeType, size: row.size },
      bytes: row.data,
    };
  },
  async read(db, id, start, length) {
    const [row] = await db
      .select({
        part: sql<Buffer | null>`substring(${objects.data} from ${start + 1} for ${length})`,
      })
      .from(objects)
      .where(and(eq(objects.id, id), isNull(objects.deletedAt)));
    return row?.part ?? null;
  },
  async delete(db, id, now) {
    await db.update(objects).set({ data: null, deletedAt: now }).where(eq(objects.id, id));
  },
};

/** The store this deployment uses; the one place to switch to an S3-compatible store later. */
export const objectStoreOf = (_deps: CoreDeps): ObjectStore => postgresObjectStore;

export const objectPath = (id: string) => `/objects/${id}`;
export const objectIdFromPath = (path: string) =>
  /^\/objects\/(obj_[a-z0-9]{20})$/.exec(path)?.[1] ?? null;
