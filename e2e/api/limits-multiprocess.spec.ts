import { expect, test } from "@playwright/test";
import { type RunningService, startService } from "@switchboard/cli/service";
import { newAgent } from "../support/fixtures";
import { awayFromMinuteBoundary } from "../support/http";

/**
 * Two more web + worker pairs on the same database, with a small request limit: whichever
 * process a call lands on, the agent's limit is one count.
 */
const LIMIT = 20;
let services: RunningService[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const base = Number(process.env.E2E_PORT) + 10;
  services = await Promise.all(
    [0, 1].map((i) =>
      startService({
        databaseUrl: process.env.E2E_DATABASE_URL as string,
        port: base + i * 2,
        wsPort: base + i * 2 + 1,
        env: { LIMIT_REQUESTS_PER_MIN: String(LIMIT) },
        output: "ignore",
      }),
    ),
  );
});
test.afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
});

test("the per-agent request limit is exact across two web processes under concurrent load", async ({
  request,
}) => {
  const { auth } = await newAgent();
  await awayFromMinuteBoundary(10_000);
  const calls = Array.from({ length: 3 * LIMIT }, (_, i) =>
    request.get(`${services[i % 2]!.webUrl}/api/agent/v1/me`, { headers: auth }),
  );
  const statuses = (await Promise.all(calls)).map((response) => response.status());
  expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LIMIT);
});
