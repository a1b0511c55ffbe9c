import { type RunningService, startService } from "@switchboard/cli/service";
import { deps, newContact } from "../support/fixtures";
import { servicePort } from "../support/ports";
import { rawRequest } from "../support/raw-http";
import { E2E_SERVICE_ENV } from "../support/service-env";
import { expect, test } from "../support/test";

/**
 * A web process told to stop (SIGTERM, as a deploy or scale-down does) while agents are sending:
 * every request it accepted is answered in full and every message it answered 201 is stored; a
 * request that gets no answer (refused at connect while no process listens, or reset while still
 * in the listen queue) was not taken: its message is not stored, so sending it again is safe;
 * a parked long-poll answers at once instead of holding the exit. The launcher then starts a new
 * web process, which serves again.
 */
test.describe.configure({ mode: "serial" });
let service: RunningService;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const port = servicePort("shutdown");
  service = await startService({
    databaseUrl: process.env.E2E_DATABASE_URL as string,
    port,
    wsPort: port + 1,
    env: {
      ...E2E_SERVICE_ENV,
      LIMIT_REQUESTS_PER_MIN: "100000",
      LIMIT_MESSAGES_PER_MIN: "100000",
      LIMIT_PER_RECIPIENT_PER_MIN: "100000",
      LIMIT_DAILY_MESSAGES: "100000",
    },
    output: "ignore",
    log: () => {},
  });
});
test.afterAll(async () => {
  await service?.stop();
});

type Outcome =
  | { status: number; body: string; startedAt: number; endedAt: number }
  | { error: string; startedAt: number; endedAt: number };

/** One request on its own connection (rawRequest's), so a refusal can only mean "not accepted". */
async function call(
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Outcome> {
  const startedAt = Date.now();
  try {
    const answer = await rawRequest(
      service.webUrl,
      body === undefined ? "GET" : "POST",
      `/api/agent/v1${path}`,
      body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
      body === undefined ? undefined : JSON.stringify(body),
    );
    return { status: answer.status, body: answer.text, startedAt, endedAt: Date.now() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { error: code, startedAt, endedAt: Date.now() };
  }
}

test("SIGTERM under load: what was accepted is answered and stored, a parked poll returns at once", async () => {
  test.setTimeout(90_000);
  const contacts = await Promise.all(Array.from({ length: 5 }, () => newContact()));
  const poller = contacts[0];

  // A long-poll parked with a long wait; nothing will arrive for its agent.
  const { nextSeq } = JSON.parse(
    ((await call("/updates?afterSeq=0", poller!.auth)) as { body: string }).body,
  );
  const parked = call(`/updates?afterSeq=${nextSeq}&wait=25`, poller!.auth);

  // Four senders, each sending one message after another until told to stop.
  let sending = true;
  const outcomes: (Outcome & { content: string })[] = [];
  const senders = contacts.slice(1).map(async ({ auth, person }, n) => {
    for (let i = 0; sending; i++) {
      const content = `s${n}-${i}`;
      const outcome = await call("/messages", auth, { to: person.num, type: "text", content });
      outcomes.push({ ...outcome, content });
      if ("error" in outcome) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  await expect.poll(() => outcomes.filter((o) => "status" in o).length).toBeGreaterThan(20);
  const webPid = service.pids().web as number;
  const signalledAt = Date.now();
  process.kill(webPid, "SIGTERM");

  const poll = await parked;
  expect(poll).toMatchObject({ status: 200 });
  expect(JSON.parse((poll as { body: string }).body).events).toEqual([]);
  expect(poll.endedAt - signalledAt).toBeLessThan(5_000);

  // The launcher starts a new web process; sends succeed on it again.
  await expect.poll(() => service.pids().web !== webPid, { timeout: 30_000 }).toBe(true);
  await expect
    .poll(() => outcomes.filter((o) => "status" in o && o.startedAt > signalledAt + 1000).length, {
      timeout: 60_000,
    })
    .toBeGreaterThan(5);
  sending = false;
  await Promise.all(senders);

  // Every request that was answered was answered 201, and its message is stored; no request
  // without an answer left a message behind.
  const answered = outcomes.filter((o) => "status" in o);
  expect(answered.map((o) => ("status" in o ? o.status : 0)).filter((s) => s !== 201)).toEqual([]);
  const unanswered = outcomes.filter((o) => "error" in o);
  expect(unanswered.filter((o) => !["ECONNREFUSED", "ECONNRESET"].includes(o.error))).toEqual([]);
  // Some requests were in flight when the signal came, and were finished.
  expect(answered.some((o) => o.startedAt < signalledAt && o.endedAt > signalledAt)).toBe(true);

  const conversations = contacts.slice(1).map((c) => c.conversationId);
  const stored = await deps().sql<{ content: string }[]>`
    select content from messages where conversation_id in ${deps().sql(conversations)}`;
  expect(stored.map((row) => row.content).sort()).toEqual(answered.map((o) => o.content).sort());
});
