import type { AgentScope, AgentSendMessageRequest } from "@switchboard/contract";
import { createDb } from "@switchboard/db";
import { createTestDatabase, dropDatabase } from "@switchboard/db/testing";
import { type Clock, ManualClock } from "./clock";
import { type Config, loadConfig } from "./config";
import { addContact } from "./contacts/contacts";
import type { CoreDeps } from "./deps";
import { CoreError } from "./errors";
import { Notifier } from "./events/notifier";
import { createAgent } from "./identity/agents";
import { createUser } from "./identity/users";
import { LeaseKeeper } from "./limits/leases";
import { sendAgentMessage } from "./messaging/send-agent-message";
import { metrics } from "./metrics";

/**
 * Internals that tests and tools reach past the operations with: writing events directly,
 * queueing jobs, ids, the object store.
 */
export { appendEvents } from "./events/append-event";
export { newId } from "./ids";
export { enqueueJob } from "./jobs/enqueue-job";
export { utcDay } from "./limits/charge-send";
export { browserKeys, decryptPush, vapidClaims } from "./notifications/test-push";
export { objectIdFromPath, postgresObjectStore } from "./objects/object-store";
export { dataUrl, oggBytes, wavBytes } from "./objects/test-media";

/**
 * Per-minute limits count in fixed UTC-minute windows (decision 0005); a test that must see one
 * window whole waits out the last few seconds of a minute first.
 */
export async function awayFromMinuteBoundary(needMs = 5000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (60_000 - intoMinute < needMs)
    await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 50));
}

/**
 * The keys every test process and every service a test or benchmark starts is given: the
 * service never makes its own (decision 0063), so whoever starts one passes them, the same for
 * all processes over one database. For tests only: never an instance's keys.
 */
export const TEST_KEYS = {
  AUTH_SECRET: "test-only-auth-secret-never-for-an-instance-000",
  SECRETS_KEY: "test-only-secrets-key-never-for-an-instance-000",
  VAPID_PUBLIC_KEY:
    "BNd2Y0sf0DPKangDfcq9NemPyf0xgOoqtQj8fAd-EuS0dl2DedS13O-alZ5Sy2gNyybgTA3FlVcf2Uyz9K6Gdus",
  VAPID_PRIVATE_KEY: "gJvC3a8j9eZ2CtJIV_1lnjd9zIqXIy8l3N9kFAUALyc",
} as const;

/**
 * Core deps over a fresh migrated database for one test file, with a manual clock and config
 * overrides (env-style strings, exactly as an operator would set them) over TEST_KEYS.
 */
export async function createTestDeps(
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<{
  deps: CoreDeps & { clock: Clock };
  clock: ManualClock;
  config: Config;
  close(): Promise<void>;
}> {
  // Loaded here, not at the top: tools outside vitest (e2e fixtures, benchmarks) import this
  // module for the internals below.
  const { inject } = await import("vitest");
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const config = loadConfig({ ...TEST_KEYS, ...options.env, DATABASE_URL: database.url });
  const { db, sql, close } = createDb(database.url, { max: 5 });
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock();
  const leases = new LeaseKeeper(db, clock);
  return {
    deps: { db, sql, clock, config, notifier: new Notifier(sql, clock), leases },
    clock,
    config,
    close: async () => {
      leases.stop();
      await close();
      await dropDatabase(server.adminUrl, database.name);
    },
  };
}

/** An agent, its owner, and a person who added it granting `messages:read` and `messages:write`. */
export async function newAgentContact(deps: CoreDeps, displayName = "Test Agent") {
  const owner = await createUser(deps, {});
  const person = await createUser(deps, {});
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName,
    requestedScopes: ["messages:read", "messages:write"],
  });
  const grant = ["messages:read", "messages:write"] as const;
  const { conversationId } = await addContact(deps, person.id, agent.id, grant);
  return { owner, person, agent, conversationId };
}

/** Any valid event, tagged so a test can tell its events apart. */
export { eventTag, taggedEvent } from "@switchboard/contract";

/** The CoreError a call fails with, or null when it succeeds; anything else is rethrown. */
export async function coreFailure(promise: Promise<unknown>): Promise<CoreError | null> {
  try {
    await promise;
    return null;
  } catch (error) {
    if (error instanceof CoreError) return error;
    throw error;
  }
}

/** "ok" when the call succeeds, else the code of the CoreError it refused with (others rethrow). */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  return (await coreFailure(call))?.code ?? "ok";
}

/**
 * How many of the webhook drains' grouped statements of a kind ran so far, and how many items
 * they carried (decision 0057).
 */
export async function groupedStatementsSoFar(statement: "due_read" | "settle") {
  const { values } = await metrics.webhookBatches.get();
  const pick = (suffix: string) =>
    values.find(
      (v) =>
        v.metricName === `switchboard_webhook_statement_batch_size${suffix}` &&
        v.labels.statement === statement,
    )?.value ?? 0;
  return { statements: pick("_count"), items: pick("_sum") };
}

/**
 * The messaging tests' chat: an owner's agent (Helper) in a person's (Pat's) contacts with the
 * given grant, and `send` as that agent in it. Plain functions, no hooks: the core's tests share
 * modules (`isolate: false`), so each test file owns its setup.
 */
export async function testChat(
  deps: CoreDeps,
  grant: AgentScope[] = ["messages:read", "messages:write"],
) {
  const owner = await createUser(deps, {});
  const person = await createUser(deps, { displayName: "Pat" });
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Helper",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(deps, person.id, agent.id, grant);
  const send = (request: Omit<AgentSendMessageRequest, "to" | "conversationId">, sendDeps = deps) =>
    sendAgentMessage(sendDeps, { agentId: agent.id }, { conversationId, ...request });
  return { owner, person, agent, conversationId, send };
}
