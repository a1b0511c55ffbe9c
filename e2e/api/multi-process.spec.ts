import { type RunningService, startService } from "@switchboard/cli/service";
import type { AgentEvent } from "@switchboard/contract";
import { sendPersonMessage } from "@switchboard/core";
import { WebSocket } from "ws";
import { deps, newContact } from "../support/fixtures";
import { servicePort } from "../support/ports";
import { E2E_SERVICE_ENV } from "../support/service-env";
import { expect, test } from "../support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * A second web process and a second worker on the run's database, as a deployment with several
 * of each runs: while events commit concurrently, an agent that reads alternately from both web
 * processes, streams from one worker and resumes on the other, and takes webhooks from whichever
 * worker gets the job, sees every event once, in seq order, with no gap.
 */
test.describe.configure({ mode: "serial" });
let second: RunningService;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const port = servicePort("multiProcess");
  second = await startService({
    databaseUrl: process.env.E2E_DATABASE_URL as string,
    port,
    wsPort: port + 1,
    env: E2E_SERVICE_ENV,
    output: "ignore",
  });
});
test.afterAll(async () => {
  await second?.stop();
});

const first = () => ({
  webUrl: `http://localhost:${process.env.E2E_PORT}`,
  wsUrl: `ws://localhost:${process.env.E2E_WS_PORT}`,
});

/** Stream events from `afterSeq` on one worker until `count` have come. */
function streamEvents(wsUrl: string, token: string, afterSeq: number, count: number) {
  return new Promise<AgentEvent[]>((resolve, reject) => {
    const ws = new WebSocket(`${wsUrl}/ws/agent/v1/stream?token=${token}&afterSeq=${afterSeq}`);
    const events: AgentEvent[] = [];
    ws.on("error", reject);
    ws.on("message", (data) => {
      // Frames already on their way after close() are not part of this read.
      if (events.length === count) return;
      const frame = JSON.parse(String(data));
      if (frame.type === "event") events.push(frame.event);
      if (events.length === count) {
        ws.close();
        resolve(events);
      }
    });
  });
}

test("every event once and in order over long-poll, stream and webhook, across processes", async ({
  request,
}) => {
  test.setTimeout(120_000);
  const { token, auth, person, agent } = await newContact();
  const receiver = await startWebhookReceiver();
  try {
    const put = await request.put(`${first().webUrl}/api/agent/v1/webhook`, {
      headers: auth,
      data: { url: receiver.url },
    });
    expect(put.status()).toBe(200);

    // 40 messages committed concurrently (ten at a time) while the agent reads.
    const sent = 40;
    const committing = (async () => {
      for (let batch = 0; batch < sent / 10; batch++)
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            sendPersonMessage(deps(), person.id, agent.id, {
              type: "text",
              content: `m${batch * 10 + i}`,
            }),
          ),
        );
    })();

    // Long-poll, alternating between the two web processes, passing the cursor along.
    const polled: AgentEvent[] = [];
    let cursor = 0;
    const webs = [first().webUrl, second.webUrl];
    for (let turn = 0; polled.length < sent + 1 && turn < 60; turn++) {
      const answer = await request.get(
        `${webs[turn % 2]}/api/agent/v1/updates?afterSeq=${cursor}&wait=5&limit=7`,
        { headers: auth },
      );
      expect(answer.status()).toBe(200);
      const page = (await answer.json()) as { events: AgentEvent[]; nextSeq: number };
      polled.push(...page.events);
      cursor = page.nextSeq;
    }
    await committing;
    expect(polled.length).toBe(sent + 1); // contact.added and the messages
    const seqs = polled.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const ids = polled.map((event) => event.id);

    // The stream, from 0 on the first worker for half, then resumed on the second worker.
    const half = Math.floor(ids.length / 2);
    const head = await streamEvents(first().wsUrl, token, 0, half);
    const tail = await streamEvents(second.wsUrl, token, head.at(-1)?.seq ?? 0, ids.length - half);
    expect([...head, ...tail].map((event) => event.id)).toEqual(ids);

    // Webhooks (set after contact.added, so for the messages): either worker may deliver, and
    // every one arrives (at least once), none lost.
    const expected = new Set(polled.filter((e) => e.type === "message.received").map((e) => e.id));
    expect(expected.size).toBe(sent);
    const deliveredIds = () => new Set(receiver.received.map((r) => JSON.parse(r.body).id));
    await expect.poll(() => deliveredIds().size, { timeout: 60_000 }).toBe(sent);
    expect(deliveredIds()).toEqual(expected);
  } finally {
    await receiver.close();
  }
});
