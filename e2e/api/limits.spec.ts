import { type RunningService, startService } from "@switchboard/cli/service";
import { addContact, createUser, resumeAgent } from "@switchboard/core";
import { deps, newAgent, newContact } from "../support/fixtures";
import { awayFromMinuteBoundary, expectError } from "../support/http";
import { servicePort } from "../support/ports";
import { E2E_SERVICE_ENV } from "../support/service-env";
import { expect, test } from "../support/test";

/**
 * Two more web + worker pairs on the same database with small limits: whichever process a call
 * lands on, an agent's limits are one count.
 */
const LIMIT = 20;
// One worker runs this file, so the extra services start once.
test.describe.configure({ mode: "serial" });
let services: RunningService[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const base = servicePort("limits");
  services = await Promise.all(
    [0, 1].map((i) =>
      startService({
        databaseUrl: process.env.E2E_DATABASE_URL as string,
        port: base + i * 2,
        wsPort: base + i * 2 + 1,
        env: {
          ...E2E_SERVICE_ENV,
          LIMIT_REQUESTS_PER_MIN: String(LIMIT),
          LIMIT_MESSAGES_PER_MIN: "4",
          LIMIT_PER_RECIPIENT_PER_MIN: "2",
          LIMIT_DAILY_REFUSED: "3",
        },
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

test("message and per-recipient limits answer 429 with Retry-After and RateLimit-* headers", async ({
  request,
}) => {
  const { auth, agent, person: first } = await newContact();
  const second = await createUser(deps(), {});
  await addContact(deps(), second.id, agent.id, ["messages:write"]);
  await awayFromMinuteBoundary(10_000);
  const send = (i: number, to: string) =>
    request.post(`${services[i % 2]!.webUrl}/api/agent/v1/messages`, {
      headers: auth,
      data: { to, type: "text", content: `m${i}` },
    });

  expect((await send(0, first.num)).status()).toBe(201);
  expect((await send(1, first.num)).status()).toBe(201);
  const perRecipient = await send(2, first.num);
  const recipientError = await expectError(perRecipient, 429, "conversation_rate_limited");
  expect(perRecipient.headers()["ratelimit-limit"]).toBe("2");
  expect(perRecipient.headers()["ratelimit-remaining"]).toBe("0");
  expect(perRecipient.headers()["retry-after"]).toBe(String(recipientError.retryAfterSeconds));

  expect((await send(3, second.num)).status()).toBe(201);
  expect((await send(4, second.num)).status()).toBe(201);
  const perAgent = await send(5, second.num);
  const agentError = await expectError(perAgent, 429, "rate_limited");
  expect(agentError.retryAfterSeconds).toBeGreaterThan(0);
  expect(perAgent.headers()["ratelimit-limit"]).toBe("4");
  expect(Number(perAgent.headers()["ratelimit-reset"])).toBe(agentError.retryAfterSeconds);
});

test("refused sends reach the daily ceiling and pause the agent; the owner's same-day resume holds", async ({
  request,
}) => {
  const { auth, agent } = await newAgent();
  const stranger = await createUser(deps(), {});
  const send = (i: number) =>
    request.post(`${services[i % 2]!.webUrl}/api/agent/v1/messages`, {
      headers: auth,
      data: { to: stranger.num, type: "text", content: "hello?" },
    });
  for (const i of [0, 1, 2]) await expectError(await send(i), 403, "not_a_contact");
  const paused = await expectError(
    await request.get(`${services[1]!.webUrl}/api/agent/v1/me`, { headers: auth }),
    403,
    "agent_paused",
  );
  expect(paused.message).toMatch(/automatically.*refused/);

  await resumeAgent(deps(), agent.id);
  expect(
    (await request.get(`${services[0]!.webUrl}/api/agent/v1/me`, { headers: auth })).status(),
  ).toBe(200);
  await expectError(await send(3), 403, "not_a_contact");
  expect(
    (await request.get(`${services[1]!.webUrl}/api/agent/v1/me`, { headers: auth })).status(),
  ).toBe(200);
});
