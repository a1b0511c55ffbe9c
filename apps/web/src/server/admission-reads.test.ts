import { createAgent, createUser, mintAgentToken } from "@switchboard/core";
import { appendEvents, createTestDeps, taggedEvent } from "@switchboard/core/testing";
import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as me from "../../app/api/agent/v1/me/route";
import * as updates from "../../app/api/agent/v1/updates/route";
import { provideDeps } from "./deps";

// The admission statement carries the read of `GET /me` and the "anything new?" of
// `GET /updates` (decision 0075): statements per call, counted as postgres.js sends them.
let t: Awaited<ReturnType<typeof createTestDeps>>;
let traced: ReturnType<typeof createDb>;
const statements: string[] = [];
beforeAll(async () => {
  t = await createTestDeps();
  traced = createDb(t.config.DATABASE_URL as string, {
    max: 2,
    debug: (_connection, query) => statements.push(query),
  });
  provideDeps({ ...t.deps, db: traced.db, sql: traced.sql });
  await traced.sql`select 1`; // postgres.js reads its type list once per pool
});
afterAll(async () => {
  await traced.close();
  await t.close();
});

const context = { params: Promise.resolve({}) };

async function agentWithToken() {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Counted" });
  const { token } = await mintAgentToken(t.deps, agent.id);
  const get = async (route: typeof me.GET, path: string) => {
    statements.length = 0;
    const response = await route(
      new Request(`http://localhost/api/agent/v1/${path}`, {
        headers: { Authorization: `Bearer agent:${token}` },
      }),
      context,
    );
    return { status: response.status, body: await response.json(), statements: statements.length };
  };
  return { agent, get };
}

const append = (agentId: string) =>
  t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agentId)]));

it("answers GET /me with the admission statement alone", async () => {
  const { agent, get } = await agentWithToken();
  const answer = await get(me.GET, "me");
  expect(answer).toMatchObject({ status: 200, body: { id: agent.id }, statements: 1 });
});

it("answers GET /updates with nothing new in one statement, and reads when there is", async () => {
  const { agent, get } = await agentWithToken();
  const [event] = await append(agent.id);
  const seq = event?.seq as number;

  const nothing = await get(updates.GET, `updates?afterSeq=${seq}&wait=0`);
  expect(nothing).toEqual({ status: 200, body: { events: [], nextSeq: seq }, statements: 1 });

  const some = await get(updates.GET, `updates?afterSeq=${seq - 1}&wait=0`);
  expect(some.status).toBe(200);
  expect(some.body.events.map((e: { seq: number }) => e.seq)).toEqual([seq]);
  expect(some.statements).toBe(2);

  // A cursor the query schema refuses attaches nothing and is refused as before.
  const bad = await get(updates.GET, "updates?afterSeq=-1&wait=0");
  expect(bad.status).toBe(400);
  expect(bad.body.error.code).toBe("validation_error");
});

it("still parks and wakes when the admission saw nothing new", async () => {
  const { agent, get } = await agentWithToken();
  const [event] = await append(agent.id);
  const seq = event?.seq as number;
  const parked = get(updates.GET, `updates?afterSeq=${seq}&wait=5`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const [next] = await append(agent.id);
  const answer = await parked;
  expect(answer.status).toBe(200);
  expect(answer.body.events.map((e: { seq: number }) => e.seq)).toEqual([next?.seq]);
});
