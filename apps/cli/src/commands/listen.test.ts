import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import {
  addContact,
  createAgent,
  createUser,
  getAgentAction,
  proposeAction,
  putWebhook,
  sendPersonMessage,
} from "@switchboard/core";
import { createTestDeps, TEST_KEYS } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { verifyWebhook } from "@switchboard/sdk";
import Stripe from "stripe";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cliBin } from "../testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
  dataDir = mkdtempSync(path.join(tmpdir(), "listen-"));
  const running = { pid: process.pid, databaseUrl: t.config.DATABASE_URL, webUrl: "", wsUrl: "" };
  writeFileSync(path.join(dataDir, "instance.json"), JSON.stringify(running));
  writeFileSync(path.join(dataDir, "keys.json"), JSON.stringify(TEST_KEYS));
});
afterAll(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The CLI as an operator runs it beside `npm start`: nothing configured, the instance and its
 * keys found in the data directory (what the launcher writes there: instance.json, keys.json).
 */
const env = () => {
  const { DATABASE_URL: _url, AUTH_SECRET: _auth, SECRETS_KEY: _key, ...rest } = process.env;
  return { ...rest, SWITCHBOARD_DATA_DIR: dataDir };
};

/** A local receiver: every request's headers and raw body. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
async function receiver(status = 200) {
  const received: Received[] = [];
  const waiting: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(status).end("thanks");
      for (const wake of waiting.splice(0)) wake();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  return {
    url,
    received,
    /** Resolves once `count` requests have arrived. */
    async count(count: number) {
      while (received.length < count) await new Promise<void>((wake) => waiting.push(wake));
      return received;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** One JSON line of `listen` (the first says where it listens). */
type Line = Record<string, unknown> & { listening: Record<string, unknown> & { secret: string } };

/** `switchboard listen` as a process, with its stdout as JSON lines. */
function listen(...args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [cliBin, "listen", ...args], {
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const waiting: (() => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    lines.push(JSON.parse(text));
    for (const wake of waiting.splice(0)) wake();
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const running = {
    lines,
    async line(index: number) {
      while (lines.length <= index) {
        if (child.exitCode !== null) throw new Error(`listen exited: ${stderr}`);
        await new Promise<void>((wake) => waiting.push(wake));
      }
      return lines[index] as Line;
    },
    /** Ctrl-C: answers the final object it printed. */
    async stop() {
      child.kill("SIGINT");
      const [code] = await once(child, "exit");
      expect(code, stderr).toBe(0);
      return lines.at(-1);
    },
  };
  children.push(child);
  return running;
}
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

async function contact(grant = ["messages:read", "messages:write"]) {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Listener",
    requestedScopes: ["messages:read", "messages:write", "tasks:read"],
  });
  const person = await createUser(t.deps, { displayName: "Pat" });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, grant);
  return { agent, person, conversationId };
}

describe("switchboard listen", () => {
  it("forwards each new event signed like a delivery, accepted by verifyWebhook and Stripe", async () => {
    const { agent, person } = await contact();
    const hook = await receiver();
    const run = listen("--agent", agent.num, "--forward-to", hook.url);
    const started = await run.line(0);
    expect(started).toEqual({
      listening: {
        agent: agent.num,
        forwardTo: hook.url,
        afterSeq: expect.any(Number),
        signedWith: "a temporary secret",
        secret: expect.stringMatching(/^whsec_/),
      },
    });
    const { secret } = started.listening;
    const { message } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "hello listener",
    });
    const [got] = await hook.count(1);
    const header = got?.headers["x-svc-signature"] as string;
    expect(got?.headers).toMatchObject({
      "content-type": "application/json",
      "x-svc-event-type": "message.received",
      "x-svc-delivery-attempt": "1",
    });
    const event = verifyWebhook(got?.body ?? "", header, secret);
    expect(event).toMatchObject({
      type: "message.received",
      agentId: agent.id,
      payload: { message: { id: message.id, content: "hello listener" } },
    });
    expect(got?.headers["x-svc-event-id"]).toBe(event.id);
    const stripe = new Stripe("sk_test_unused").webhooks.constructEvent(
      got?.body ?? "",
      header,
      secret,
    );
    expect(stripe).toMatchObject({ id: event.id });
    expect(() => verifyWebhook(got?.body ?? "", header, "whsec_other")).toThrow();
    expect(await run.line(1)).toEqual({
      event: { id: event.id, seq: event.seq, type: "message.received" },
      answer: { status: 200, ms: expect.any(Number), body: "thanks" },
    });
    expect(await run.stop()).toEqual({ stopped: true, forwarded: 1, afterSeq: event.seq });
    await hook.close();
  });

  it("resumes where it stopped with the same secret, and reads events as the agent may see them", async () => {
    // The person withheld messages:read: the forwarded event is masked, as for the agent.
    const { agent, person } = await contact(["messages:write"]);
    const hook = await receiver(500);
    const first = listen("--agent", agent.id, "--forward-to", hook.url);
    const { secret } = (await first.line(0)).listening;
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "one" });
    await hook.count(1);
    expect(await first.line(1)).toMatchObject({ answer: { status: 500, body: "thanks" } });
    const stopped = await first.stop();

    // Written while nobody listened: the next run starts with it.
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "two" });
    const second = listen("--agent", agent.num, "--forward-to", hook.url);
    expect((await second.line(0)).listening).toMatchObject({
      afterSeq: (stopped as { afterSeq: number }).afterSeq,
      secret,
    });
    const [, missed] = await hook.count(2);
    const event = verifyWebhook(missed?.body ?? "", missed?.headers["x-svc-signature"], secret);
    expect(event).toMatchObject({
      type: "message.received",
      payload: { message: null, accessDenied: { scope: "messages:read" } },
    });
    expect(missed?.body).not.toContain("two");
    await second.stop();

    // --after-seq replays from a chosen point.
    const replay = listen("--agent", agent.num, "--forward-to", hook.url, "--after-seq", "0");
    await hook.count(2 + 3); // contact.added and both messages again
    await replay.stop();
    await hook.close();
  });

  it("signs with the agent's webhook secret when it has a webhook, with the running instance's keys", async () => {
    const { agent, person } = await contact();
    const hook = await receiver();
    const { secret } = await putWebhook(t.deps, agent.id, "http://127.0.0.1:9/elsewhere");
    const run = listen("--agent", agent.num, "--forward-to", hook.url);
    expect((await run.line(0)).listening).toEqual(
      expect.objectContaining({ signedWith: "the agent's webhook secret" }),
    );
    expect((await run.line(0)).listening).not.toHaveProperty("secret");
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "signed" });
    const [got] = await hook.count(1);
    expect(verifyWebhook(got?.body ?? "", got?.headers["x-svc-signature"], secret).type).toBe(
      "message.received",
    );
    await run.stop();
    await hook.close();
    // It used the instance's key from the data directory and made none of its own.
    expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
  });

  it("refuses a URL that is not http(s) with the command's usage", async () => {
    const { agent } = await contact();
    const failed = await promisify(execFile)(
      process.execPath,
      [cliBin, "listen", "--agent", agent.num, "--forward-to", "ftp://x"],
      { env: env() },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(JSON.parse((failed as { stderr: string }).stderr).error).toMatchObject({
      code: "validation_error",
      message: expect.stringContaining("usage: switchboard listen --agent AGENT --forward-to URL"),
    });
  });
});

/** Runs `switchboard trigger …` and answers its one JSON object. */
async function trigger(...args: string[]) {
  const { stdout } = await promisify(execFile)(process.execPath, [cliBin, "trigger", ...args], {
    env: env(),
  });
  return JSON.parse(stdout);
}

describe("switchboard trigger", () => {
  it("makes a test person who adds the agent and writes: contact.added, message.received", async () => {
    const { agent } = await contact();
    const out = await trigger("message.received", "--agent", agent.num, "--content", "ping");
    expect(out).toMatchObject({
      triggered: "message.received",
      person: { user: { num: expect.any(String) }, conversationId: expect.any(String) },
      events: [
        { type: "contact.added", seq: expect.any(Number) },
        { type: "message.received", seq: expect.any(Number) },
      ],
    });
    const added = await trigger("contact.added", "--agent", agent.num);
    expect(added.events).toEqual([expect.objectContaining({ type: "contact.added" })]);
    // From a person who already added it.
    const again = await trigger(
      "message.received",
      "--agent",
      agent.id,
      "--from",
      out.person.user.num,
    );
    expect(again.events).toEqual([expect.objectContaining({ type: "message.received" })]);
  });

  it("approves the agent's newest pending proposal as its person, or a new one; rejects", async () => {
    const { agent, conversationId } = await contact();
    t.clock.set(new Date()); // the CLI decides on the system clock: the card must not be expired
    const { action } = await proposeAction(
      t.deps,
      { agentId: agent.id },
      { conversationId, kind: "demo", title: "Do it", payload: { n: 1 } },
    );
    const approved = await trigger(
      "action.approved",
      "--agent",
      agent.num,
      "--edited-payload",
      '{"n":2}',
    );
    expect(approved).toMatchObject({
      action: { id: action.id, state: "approved" },
      events: [{ type: "action.approved" }],
    });
    expect((await getAgentAction(t.deps, agent.id, action.id)).editedPayload).toEqual({ n: 2 });
    const made = await trigger("action.rejected", "--agent", agent.num);
    expect(made).toMatchObject({
      action: { state: "rejected" },
      person: { conversationId: expect.any(String) },
      events: [{ type: "contact.added" }, { type: "action.rejected" }],
    });
  });
});
