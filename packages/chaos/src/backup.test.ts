import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentEvent } from "@switchboard/contract";
import {
  addContact,
  createAgent,
  createDeps,
  createUser,
  decideAction,
  loadConfig,
  mintAgentToken,
  proposeAction,
  putWebhook,
  readEvents,
  sendPersonMessage,
} from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import { withDatabase } from "@switchboard/db";
import { createTestDatabase, dropDatabase } from "@switchboard/db/testing";
import postgres from "postgres";
import { afterAll, describe, expect, inject, test } from "vitest";
import { WebSocket } from "ws";
import { freePort, sleep } from "./cluster";
import { startReceiver } from "./receivers";

/**
 * Backups that restore (docs/deploy.md, "Backups"): a populated database dumped with `pg_dump
 * -Fc`, restored with `pg_restore` into a database that did not exist, and a worker started on
 * the copy. An agent replaying from afterSeq=0 over the stream (with its old token) sees the same
 * events, and a delivery of a new event is signed with the webhook secret handed out before the
 * dump (sealed under the key the database keeps, which the dump carries).
 *
 * Debian's pg_dump cannot dump a newer server (the embedded Postgres is 17); this runs where the
 * client is as new as the server: CI's DATABASE_URL pass on the machine's Postgres 15.
 */
const { adminUrl, template } = inject("testDatabase");
const clientMajor = Number(/(\d+)\./.exec(execFileSync("pg_dump", ["--version"]).toString())?.[1]);
const serverMajor = await (async () => {
  const sql = postgres(adminUrl, { max: 1 });
  try {
    const [row] = await sql`select current_setting('server_version_num')::int / 10000 as major`;
    return Number(row?.major);
  } finally {
    await sql.end();
  }
})();

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

describe.runIf(clientMajor >= serverMajor)("a pg_dump backup restored", () => {
  test("replays the same events, keeps tokens and webhook secrets", async () => {
    const source = await createTestDatabase({ adminUrl, template });
    cleanups.push(() => dropDatabase(adminUrl, source.name));
    const settings = {
      ...TEST_KEYS,
      DATABASE_URL: source.url,
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
    };
    const before = createDeps(loadConfig(settings), { poolSize: 2 });
    cleanups.push(before.close);

    // A populated instance: an agent with a token and a webhook, a person, messages both ways'
    // worth of events, and an approved skill proposal.
    const receiver = await startReceiver("ok", () => 1);
    cleanups.push(receiver.close);
    const owner = await createUser(before.deps, { displayName: "Owner" });
    const agent = await createAgent(before.deps, {
      ownerId: owner.id,
      displayName: "Backed up",
      requestedScopes: ["messages:read", "messages:write", "tasks:write"],
    });
    const { token } = await mintAgentToken(before.deps, agent.id);
    const { secret } = await putWebhook(before.deps, agent.id, receiver.url);
    receiver.secret = secret;
    const person = await createUser(before.deps, { displayName: "Person" });
    const { conversationId } = await addContact(before.deps, person.id, agent.id, [
      "messages:read",
      "messages:write",
      "tasks:write",
    ]);
    for (let i = 0; i < 5; i++)
      await sendPersonMessage(before.deps, person.id, agent.id, { type: "text", content: `m${i}` });
    const { action } = await proposeAction(
      before.deps,
      { agentId: agent.id },
      {
        conversationId,
        skill: "create_task",
        title: "Back up",
        payload: { title: "Back up" },
      },
    );
    await decideAction(before.deps, { userRef: person.id, actionId: action.id, approve: true });
    const original = (await readEvents(before.deps, agent.id, 0, 100)).events;
    expect(original.map((e) => e.type)).toContain("action.approved");

    // The backup and its restore into a database that did not exist.
    const dir = mkdtempSync(path.join(tmpdir(), "switchboard-backup-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const dump = path.join(dir, "switchboard.dump");
    execFileSync("pg_dump", ["--format=custom", `--file=${dump}`, `--dbname=${source.url}`]);
    const restoredName = `${source.name}_restored`;
    const admin = postgres(adminUrl, { max: 1 });
    await admin.unsafe(`create database ${restoredName}`);
    await admin.end();
    cleanups.push(() => dropDatabase(adminUrl, restoredName));
    const restoredUrl = withDatabase(adminUrl, restoredName);
    execFileSync("pg_restore", ["--no-owner", "--exit-on-error", `--dbname=${restoredUrl}`, dump]);

    // A worker on the copy: ready (every migration is there), the old token opens the stream.
    const wsPort = await freePort();
    const worker = spawn(
      process.execPath,
      ["--import", "tsx", path.resolve(import.meta.dirname, "../../../apps/worker/src/main.ts")],
      {
        env: {
          ...process.env,
          ...settings,
          DATABASE_URL: restoredUrl,
          WS_PORT: String(wsPort),
          LOG_LEVEL: "warn",
        },
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
    cleanups.push(async () => {
      if (worker.exitCode === null) {
        worker.kill("SIGTERM");
        await once(worker, "exit");
      }
    });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${wsPort}/readyz`)).ok);
    const replayed = await streamFrom(`ws://127.0.0.1:${wsPort}`, token, 0, original.length);
    expect(replayed).toEqual(original);

    // The deliveries that were pending at the dump go out from the copy, and a new event too,
    // every one signed with the secret handed out before the dump.
    const after = createDeps(loadConfig({ ...settings, DATABASE_URL: restoredUrl }), {
      poolSize: 2,
    });
    cleanups.push(after.close);
    const { message } = await sendPersonMessage(after.deps, person.id, agent.id, {
      type: "text",
      content: "restored",
    });
    const delivered = () => new Set(receiver.arrivals.map((a) => a.id));
    await waitFor(async () => delivered().size === original.length + 1);
    const latest = (await readEvents(after.deps, agent.id, 0, 100)).events;
    expect(latest.slice(0, -1)).toEqual(original);
    expect(latest.at(-1)?.payload).toMatchObject({ message: { id: message.id } });
    expect(delivered()).toEqual(new Set(latest.map((e) => e.id)));
    expect(receiver.arrivals.every((a) => a.signed)).toBe(true);
  }, 90_000);
});

/** Events from `afterSeq` over the worker's stream until `count` have come. */
function streamFrom(wsUrl: string, token: string, afterSeq: number, count: number) {
  return new Promise<AgentEvent[]>((resolve, reject) => {
    const ws = new WebSocket(`${wsUrl}/ws/agent/v1/stream?afterSeq=${afterSeq}`, {
      headers: { authorization: `Bearer agent:${token}` },
    });
    const events: AgentEvent[] = [];
    ws.on("error", reject);
    ws.on("close", (code, reason) => reject(new Error(`closed ${code} ${reason}`)));
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === "event" && events.length < count) events.push(frame.event);
      if (events.length === count) {
        ws.removeAllListeners("close");
        ws.close();
        resolve(events);
      }
    });
  });
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(100);
  }
}
