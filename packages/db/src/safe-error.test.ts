import { sql } from "drizzle-orm";
import { expect, inject, it } from "vitest";
import { createDb } from "./client";
import { describeError, safeError } from "./safe-error";
import { createTestDatabase, dropDatabase } from "./testing";

const SECRET = "whsec_do-not-log-me-42";

it("describes failed queries without their parameters, details or quoted values", async () => {
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const { db, close } = createDb(database.url, { max: 1 });
  try {
    const failures: unknown[] = [];
    // A bad value: Postgres quotes it in its message.
    await db.execute(sql`select ${SECRET}::int`).catch((e) => failures.push(e));
    // A NUL byte in a parameter.
    await db.execute(sql`select ${`${SECRET}\u0000`}::text`).catch((e) => failures.push(e));
    // A duplicate: Postgres' detail quotes the row's values.
    const row = { key: SECRET, value: SECRET, updatedAt: new Date() };
    const { instanceSettings } = await import("./schema");
    await db.insert(instanceSettings).values(row);
    await db
      .insert(instanceSettings)
      .values(row)
      .catch((e) => failures.push(e));
    expect(failures).toHaveLength(3);
    for (const failure of failures) {
      // What the error itself would print: the parameters are in it.
      expect(String((failure as Error).message) + JSON.stringify(failure)).toContain(SECRET);
      const described = describeError(failure);
      expect(described).not.toContain(SECRET);
      expect(described).toMatch(/^DrizzleQueryError: Failed query: /);
      expect(described).toMatch(/caused by PostgresError [0-9A-Z]{5}: /);
      const safe = safeError(failure);
      expect(`${safe.message}${safe.stack}`).not.toContain(SECRET);
    }
    expect(describeError(failures[2])).toContain("constraint instance_settings_pkey");
  } finally {
    await close();
    await dropDatabase(server.adminUrl, database.name);
  }
});
