import type { Tx } from "@switchboard/db";
import { sql } from "drizzle-orm";
import type { Config } from "../config";
import { CoreError } from "../errors";

export type StorageQuotas = Pick<
  Config,
  "LIMIT_MEDIA_BYTES_PER_AGENT" | "LIMIT_MEDIA_BYTES_PER_OWNER"
>;

/**
 * Refuses to store `bytes` more for `uploaderId` when that would pass a media quota: an
 * agent's own stored bytes (LIMIT_MEDIA_BYTES_PER_AGENT), and everything an owner account and
 * all its agents store together (LIMIT_MEDIA_BYTES_PER_OWNER; a person's own uploads count
 * there too). Deleted objects do not count. Checked inside the storing transaction under a lock
 * per owner account, so concurrent uploads cannot pass a quota together.
 */
export async function assertStorageQuota(
  tx: Tx,
  quotas: StorageQuotas,
  uploaderId: string,
  bytes: number,
): Promise<void> {
  const [row] = await tx.execute<{ account: string; is_agent: boolean }>(sql`
    select coalesce(a.owner_id, u.id) as account, a.id is not null as is_agent
    from users u left join agents a on a.id = u.id
    where u.id = ${uploaderId}`);
  if (!row) return;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`objects:${row.account}`}))`);
  const [used] = await tx.execute<{ own: string; account: string }>(sql`
    select
      coalesce(sum(size) filter (where owner_id = ${uploaderId}), 0) as own,
      coalesce(sum(size), 0) as account
    from objects
    where deleted_at is null
      and (owner_id = ${row.account}
        or owner_id in (select id from agents where owner_id = ${row.account}))`);
  const own = Number(used?.own ?? 0);
  const account = Number(used?.account ?? 0);
  const refuse = (whose: string, limit: number, usedBytes: number) =>
    new CoreError(
      "storage_quota_exceeded",
      `Storing ${bytes} more bytes would pass ${whose} media quota of ${limit} bytes (${usedBytes} in use)`,
    );
  if (row.is_agent && own + bytes > quotas.LIMIT_MEDIA_BYTES_PER_AGENT)
    throw refuse("this agent's", quotas.LIMIT_MEDIA_BYTES_PER_AGENT, own);
  if (account + bytes > quotas.LIMIT_MEDIA_BYTES_PER_OWNER)
    throw refuse(
      row.is_agent ? "its owner's" : "your",
      quotas.LIMIT_MEDIA_BYTES_PER_OWNER,
      account,
    );
}
