import { createDb } from "@switchboard/db";
import { createTestDatabase, dropDatabase } from "@switchboard/db/testing";
import { expect, inject, it } from "vitest";
import { watchDatabase } from "./health";

it("a database gone for good is given up on, once, with why; one that answers is not", async () => {
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const { sql, close } = createDb(database.url, { max: 1 });
  const reasons: string[] = [];
  const stop = watchDatabase({ sql }, (reason) => reasons.push(reason), {
    intervalMs: 100,
    attempts: 3,
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reasons).toEqual([]);
    await dropDatabase(server.adminUrl, database.name);
    const deadline = Date.now() + 10_000;
    while (reasons.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reasons).toEqual([expect.stringMatching(/^3D000: database ".+" does not exist/)]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(reasons).toHaveLength(1);
  } finally {
    stop();
    await close();
  }
});
