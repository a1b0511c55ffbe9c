import { readFileSync } from "node:fs";
import { repoRoot } from "../support/processes";
import { expect, test } from "../support/test";

test("/docs links the quickstart, which this instance serves as written", async ({ request }) => {
  const docs = await (await request.get("/docs")).text();
  expect(docs).toContain('href="/docs/quickstart"');
  const quickstart = await request.get("/docs/quickstart");
  expect(quickstart.status()).toBe(200);
  expect(quickstart.headers()["content-type"]).toContain("text/plain");
  expect(await quickstart.text()).toBe(readFileSync(`${repoRoot}/docs/quickstart.md`, "utf8"));
});
