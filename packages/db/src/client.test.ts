import { eq, sql as raw } from "drizzle-orm";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { clientOf, createDb } from "./client";
import { users } from "./schema";
import { createTestDatabase, dropDatabase } from "./testing";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: ReturnType<typeof createDb>;
beforeAll(async () => {
  database = await createTestDatabase(inject("testDatabase"));
  // One connection, so the raw client below sees the session drizzle's statements were prepared in.
  client = createDb(database.url, { max: 1 });
});
afterAll(async () => {
  await client.close();
  await dropDatabase(inject("testDatabase").adminUrl, database.name);
});

const prepared = async () =>
  (await client.sql`select statement from pg_prepared_statements`).map((row) => row.statement);

it("prepares drizzle's statements, in and out of transactions, and reuses them", async () => {
  const byId = (executor: Pick<typeof client.db, "select">) =>
    executor.select({ id: users.id }).from(users).where(eq(users.id, "usr_none"));
  await byId(client.db);
  await client.db.transaction(async (tx) => {
    await tx.execute(raw`select ${1}::int as one`);
    await tx.transaction((savepoint) => savepoint.execute(raw`select ${2}::int as two`));
  });
  const texts = await prepared();
  expect(texts).toEqual(
    expect.arrayContaining([
      expect.stringContaining('from "users" where "users"."id" = $1'),
      "select $1::int as one",
      "select $1::int as two",
    ]),
  );
  // Run again, each is the statement already prepared, not a new one.
  await byId(client.db);
  expect((await prepared()).length).toBe(texts.length);
});

it("runs a postgres.js template inside a drizzle transaction, on its connection", async () => {
  await clientOf(client.db)`create temporary table if not exists kept (n int)`;
  await expect(
    client.db.transaction(async (tx) => {
      await clientOf(tx)`insert into kept values (${7})`;
      expect(await clientOf(tx)`select n from kept`).toEqual([{ n: 7 }]);
      throw new Error("roll back");
    }),
  ).rejects.toThrow("roll back");
  // The template's insert rolled back with the drizzle transaction it ran in.
  expect(await client.sql`select n from kept`).toEqual([]);
  expect(await prepared()).toEqual(expect.arrayContaining(["insert into kept values ($1)"]));
});
