import { performance } from "node:perf_hooks";
import { eventExamples } from "@switchboard/contract";
import {
  addContact,
  createAgent,
  createDeps,
  createUser,
  loadConfig,
  mintAgentToken,
  readOpenReplies,
} from "@switchboard/core";
import { appendEvents, TEST_KEYS } from "@switchboard/core/testing";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { WebSocket } from "ws";
import { STREAM_PATH, startWorkerProcess } from "./worker-process";

/**
 * `npm run bench`, stream part: a worker process (loopback), and in this process a person's view
 * as a web process sees it (its own connections and LISTEN), on a real Postgres.
 *  - reply.delta sent → the person's view reads the new text (NOTIFY + re-read), p50/p99;
 *  - event committed → `event` frame received by the agent, p50/p99;
 *  - frames per second one worker answers (ping re-authorizes: one query each), and deltas
 *    per second it stores.
 * The stream limits are raised so they do not cap what is measured.
 */
const SAMPLES = 300;
const BURST = 2000;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const settings = {
  ...TEST_KEYS,
  DATABASE_URL: database.url,
  STREAM_FRAMES_PER_MIN: "1000000",
  STREAM_DELTAS_PER_SEC: "100000",
  STREAM_MAX_REPLY_CHARS: "10000000",
  LIMIT_REQUESTS_PER_MIN: "100000000",
};
const web = createDeps(loadConfig(settings), { poolSize: 4 });
const worker = await startWorkerProcess(settings);
const port = worker.port;

try {
  const owner = await createUser(web.deps, {});
  const person = await createUser(web.deps, {});
  const agent = await createAgent(web.deps, {
    ownerId: owner.id,
    displayName: "Bench",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(web.deps, person.id, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  const { token } = await mintAgentToken(web.deps, agent.id);

  const ws = new WebSocket(`ws://127.0.0.1:${port}${STREAM_PATH}?token=${token}`);
  const waiting = new Map<string, (frame: Record<string, unknown>) => void>();
  // When each event frame arrived: one can arrive before its commit's answer reaches us.
  const eventArrivals = new Map<number, number>();
  ws.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    if (frame.type === "event") {
      const { seq } = frame.event as { seq: number };
      eventArrivals.set(seq, performance.now());
      waiting.get(`event:${seq}`)?.(frame);
    } else waiting.get(frame.type as string)?.(frame);
  });
  const next = (key: string) =>
    new Promise<Record<string, unknown>>((resolve) => waiting.set(key, resolve));
  const eventArrival = async (seq: number) => {
    if (!eventArrivals.has(seq)) await next(`event:${seq}`);
    return eventArrivals.get(seq) as number;
  };
  const hello = next("hello");
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  await hello;
  const send = (frame: object) => ws.send(JSON.stringify(frame));

  // The person's view: woken by NOTIFY, it re-reads the open replies (what the console does).
  const controller = new AbortController();
  const view = { chars: 0, want: 0, onSeen: null as (() => void) | null };
  void (async () => {
    for await (const _ of web.deps.notifier.watch(`user:${person.id}`, controller.signal)) {
      const [reply] = await readOpenReplies(web.deps, conversationId);
      view.chars = reply?.text.length ?? view.chars;
      if (view.chars >= view.want) view.onSeen?.();
    }
  })();
  const seen = (chars: number) =>
    new Promise<void>((resolve) => {
      view.want = chars;
      view.onSeen = () => {
        view.onSeen = null;
        resolve();
      };
      if (view.chars >= chars) view.onSeen();
    });

  const started = next("reply.started");
  send({ type: "reply.start", streamId: "bench", conversationId });
  await started;
  let chars = 0;
  const deltaToView = await sample(async () => {
    chars += 5;
    const visible = seen(chars);
    send({ type: "reply.delta", streamId: "bench", text: "abcde" });
    await visible;
    return undefined; // the whole run is the span
  });

  let seq = 0;
  const eventToFrame = await sample(async () => {
    const [event] = await web.deps.db.transaction((tx) =>
      appendEvents(tx, new Date(), [
        { agentId: agent.id, type: "contact.added", payload: eventExamples["contact.added"] },
      ]),
    );
    seq = event?.seq ?? seq;
    const committed = performance.now();
    // A frame that came before the commit's answer counts as no wait at all.
    return Math.max(0, (await eventArrival(seq)) - committed);
  });

  // Throughput: a burst of pings (each re-authorizes), then a burst of deltas until stored.
  let pongs = 0;
  const allPongs = new Promise<void>((resolve) =>
    waiting.set("pong", () => {
      pongs += 1;
      if (pongs === BURST) resolve();
    }),
  );
  let t0 = performance.now();
  for (let i = 0; i < BURST; i++) send({ type: "ping" });
  await allPongs;
  const pingsPerSecond = Math.round(BURST / ((performance.now() - t0) / 1000));

  t0 = performance.now();
  const stored = seen(chars + BURST);
  for (let i = 0; i < BURST; i++) send({ type: "reply.delta", streamId: "bench", text: "x" });
  await stored;
  const deltasPerSecond = Math.round(BURST / ((performance.now() - t0) / 1000));

  controller.abort();
  ws.close();
  console.log(
    JSON.stringify(
      {
        samples: SAMPLES,
        deltaToPersonView: deltaToView,
        eventCommitToFrame: eventToFrame,
        burst: BURST,
        pingFramesPerSecond: pingsPerSecond,
        deltaFramesStoredPerSecond: deltasPerSecond,
      },
      null,
      2,
    ),
  );
} finally {
  await worker.stop();
  await web.close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}

/** Runs `run` SAMPLES times after a warm-up; a run may answer its own measured span in ms. */
async function sample(run: () => Promise<number | undefined>) {
  for (let i = 0; i < 30; i++) await run();
  const spans: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const own = await run();
    spans.push(typeof own === "number" ? own : performance.now() - started);
  }
  spans.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((spans[Math.floor(q * (spans.length - 1))] ?? 0) * 100) / 100;
  return { p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}
