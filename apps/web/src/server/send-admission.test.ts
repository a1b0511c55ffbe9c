import {
  getAgentUsage,
  listAgentMessages,
  mintAgentToken,
  pauseAgent,
  revokeAgentToken,
} from "@switchboard/core";
import { createTestDeps, newAgentContact } from "@switchboard/core/testing";
import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as messages from "../../app/api/agent/v1/messages/route";
import { provideDeps } from "./deps";

// A repeat `POST /messages` lets its own call in: the admission, the access guard, the charge
// and the message in one statement (decision 0083). Anything that statement would not let
// through is made the plain way, in the pipeline's order. Statements counted as postgres.js
// sends them, leaving out the after-commit wake-ups' `pg_notify`.
let t: Awaited<ReturnType<typeof createTestDeps>>;
let traced: ReturnType<typeof createDb>;
const statements: string[] = [];
beforeAll(async () => {
  t = await createTestDeps({ env: { LIMIT_REQUESTS_PER_MIN: "6" } });
  traced = createDb(t.config.DATABASE_URL as string, {
    max: 2,
    // Leaving out postgres.js's own read of the array types when it opens a connection.
    debug: (_connection, query) => {
      if (!query.includes("pg_notify") && !query.includes("pg_catalog.pg_type"))
        statements.push(query);
    },
  });
  provideDeps({ ...t.deps, db: traced.db, sql: traced.sql });
  await traced.sql`select 1`; // postgres.js reads its type list once per pool
});
afterAll(async () => {
  await traced.close();
  await t.close();
});

async function agentToPerson() {
  t.clock.advance(60_000); // a fresh minute: each test's requests counted from zero
  const { person, agent, conversationId } = await newAgentContact(t.deps, "Sender");
  const {
    token,
    info: { id: tokenId },
  } = await mintAgentToken(t.deps, agent.id);
  const send = async (
    body: unknown = { to: person.num, type: "text", content: "hi" },
    headers: Record<string, string> = {},
  ) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    statements.length = 0;
    const response = await messages.POST(
      new Request("http://localhost/api/agent/v1/messages", {
        method: "POST",
        headers: {
          Authorization: `Bearer agent:${token}`,
          "Content-Type": "application/json",
          // Declared, as a client's fetch declares it: a body is read before its call is let in
          // only up to what a refused caller may make the server read.
          "Content-Length": String(Buffer.byteLength(text)),
          ...headers,
        },
        body: text,
      }),
      { params: Promise.resolve({}) },
    );
    return {
      status: response.status,
      body: await response.json(),
      remaining: response.headers.get("ratelimit-remaining"),
      statements: statements.length,
    };
  };
  const stored = async () =>
    (await listAgentMessages(t.deps, agent.id, conversationId, { limit: 100 })).messages.length;
  return { agent, token, tokenId, send, stored };
}

it("answers a repeat send with one statement, RateLimit headers counted by it", async () => {
  const { send, stored } = await agentToPerson();
  const first = await send();
  expect(first).toMatchObject({ status: 201, remaining: "5" });
  expect(first.statements).toBeGreaterThan(1); // the plain admission, then the send
  const repeat = await send();
  expect(repeat).toMatchObject({
    status: 201,
    remaining: "4",
    statements: 1,
    body: { message: { content: "hi" } },
  });
  expect(await stored()).toBe(2);
});

it("lets a revoked token's or a paused agent's call be refused the plain way, sending nothing", async () => {
  const revoked = await agentToPerson();
  await revoked.send();
  await revoked.send();
  await revokeAgentToken(t.deps, { agentId: revoked.agent.id, tokenId: revoked.tokenId });
  const refused = await revoked.send();
  expect(refused).toMatchObject({ status: 401, body: { error: { code: "token_revoked" } } });
  expect(await revoked.stored()).toBe(2);

  const paused = await agentToPerson();
  await paused.send();
  await paused.send();
  await pauseAgent(t.deps, paused.agent.id);
  expect(await paused.send()).toMatchObject({
    status: 403,
    body: { error: { code: "agent_paused" } },
  });
  expect(await paused.stored()).toBe(2);
  expect((await getAgentUsage(t.deps, paused.agent.id)).usage.messages).toBe(2);
});

it("keeps the pipeline's order: a bad body is refused after the admission, a spent limit first", async () => {
  const { agent, tokenId, send, stored } = await agentToPerson();
  await send();
  await send();
  const bad = await send({ to: "not a number", type: "text" });
  expect(bad).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });
  const broken = await send("{not json");
  expect(broken).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });
  // Requests 1–4 were let in (two sent, two refused for their body); 5 and 6 send.
  expect(await send()).toMatchObject({ status: 201, remaining: "1", statements: 1 });
  expect(await send()).toMatchObject({ status: 201, remaining: "0", statements: 1 });
  // The seventh is over the request limit, and so, before its body is looked at, the eighth.
  expect(await send()).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
  expect(await send({ type: "nothing" })).toMatchObject({
    status: 429,
    body: { error: { code: "rate_limited" } },
  });
  expect(await stored()).toBe(4);
  await revokeAgentToken(t.deps, { agentId: agent.id, tokenId });
  expect(await send({ type: "nothing" })).toMatchObject({
    status: 401,
    body: { error: { code: "token_revoked" } },
  });
});

it("makes a send with an Idempotency-Key the plain way, and replays it", async () => {
  const { send, stored } = await agentToPerson();
  await send();
  const keyed = await send(undefined, { "Idempotency-Key": "once" });
  expect(keyed.status).toBe(201);
  expect(keyed.statements).toBeGreaterThan(1);
  const again = await send(undefined, { "Idempotency-Key": "once" });
  expect(again.body).toEqual(keyed.body);
  expect(await stored()).toBe(2);
});

it("lets a call whose body declares no length, or more than a refused caller's, in the plain way", async () => {
  const { agent, send, stored, token } = await agentToPerson();
  await send();
  const undeclared = await send(undefined, { "Content-Length": "" });
  expect(undeclared).toMatchObject({ status: 201, remaining: "4" });
  expect(undeclared.statements).toBeGreaterThan(1);
  expect(await stored()).toBe(2);
  // Paused, its 16 MB body is refused before a byte of it is read.
  await pauseAgent(t.deps, agent.id);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    },
    { highWaterMark: 0 },
  );
  const refused = await messages.POST(
    new Request("http://localhost/api/agent/v1/messages", {
      method: "POST",
      headers: {
        Authorization: `Bearer agent:${token}`,
        "Content-Type": "application/json",
        "Content-Length": String(16 * 1024 * 1024),
      },
      body,
      duplex: "half",
    } as RequestInit),
    { params: Promise.resolve({}) },
  );
  expect(refused.status).toBe(403);
  expect(pulled).toBe(0);
});

it("sends twenty messages at once to one person, some in the classic order and some as one statement, without a deadlock", async () => {
  const { send, stored } = await agentToPerson();
  provideDeps({ ...t.deps, config: { ...t.config, LIMIT_REQUESTS_PER_MIN: 1000 } });
  try {
    const all = await Promise.all(Array.from({ length: 20 }, () => send()));
    expect(all.map((r) => [r.status, r.body.error?.code])).toEqual(
      Array(20).fill([201, undefined]),
    );
  } finally {
    provideDeps({ ...t.deps, db: traced.db, sql: traced.sql });
  }
  expect(await stored()).toBe(20);
});
