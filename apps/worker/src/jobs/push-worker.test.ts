import { createECDH, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  addPushSubscription,
  decideAction,
  MESSAGE_PUSH_WINDOW_MS,
  proposeAction,
  reportPresence,
} from "@switchboard/core";
import { createTestDeps, testChat } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startJobRunner } from "./runner";

// A real job queue and worker, and a real push service on loopback that can be down for a while.
let t: Awaited<ReturnType<typeof createTestDeps>>;
let origin: string;
let down = false;
const arrived: { at: number; path: string }[] = [];
const closeServer: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  t = await createTestDeps({
    clock: { now: () => new Date() },
    env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1", PUSH_RETRY_SCHEDULE_S: "1,1,1,1,1,1" },
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (down) return void res.writeHead(503, { "Retry-After": "1" }).end();
      arrived.push({ at: Date.now(), path: req.url ?? "" });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeServer.push(() => new Promise((resolve) => server.close(resolve)));
});
afterAll(async () => {
  for (const close of closeServer) await close();
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(50);
  return check();
}

it("a proposed card reaches the device within 2 s, the decision's closing push follows, and an outage delays but loses nothing", async () => {
  const { person, agent, conversationId } = await testChat(t.deps);
  // The browser's P-256 key and auth secret.
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const keys = {
    p256dh: ecdh.getPublicKey().toString("base64url"),
    auth: randomBytes(16).toString("base64url"),
  };
  await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/w`, keys });

  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    const proposedAt = Date.now();
    const { action } = await proposeAction(
      t.deps,
      { agentId: agent.id },
      {
        conversationId,
        kind: "demo.push",
        title: "Push me",
      },
    );
    expect(await until(() => arrived.length === 1, 2_000)).toBe(true);
    expect((arrived[0]?.at ?? Infinity) - proposedAt).toBeLessThan(2_000);

    // The push service goes down; the decision's closing push waits for it and then arrives.
    down = true;
    await decideAction(t.deps, { userRef: person.id, actionId: action.id, approve: false });
    await sleep(2_500);
    expect(arrived).toHaveLength(1);
    down = false;
    expect(await until(() => arrived.length === 2, 5_000)).toBe(true);
    expect(arrived[1]?.path).toBe("/push/w");
  } finally {
    await runner.stop();
  }
});

it("a burst of agent messages makes one push after the chat's window; none while a tab is looked at", async () => {
  const { person, send } = await testChat(t.deps);
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const keys = {
    p256dh: ecdh.getPublicKey().toString("base64url"),
    auth: randomBytes(16).toString("base64url"),
  };
  await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/chat`, keys });
  const toChat = () => arrived.filter((push) => push.path === "/push/chat").length;

  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    for (const content of ["one", "two", "three"]) await send({ type: "text", content });
    expect(await until(() => toChat() === 1, MESSAGE_PUSH_WINDOW_MS + 3_000)).toBe(true);
    await sleep(MESSAGE_PUSH_WINDOW_MS + 1_000);
    expect(toChat()).toBe(1);

    await reportPresence(t.deps, person.id, "tab-looking-1", true);
    await send({ type: "text", content: "seen" });
    await sleep(MESSAGE_PUSH_WINDOW_MS + 2_000);
    expect(toChat()).toBe(1);
  } finally {
    await runner.stop();
  }
});
