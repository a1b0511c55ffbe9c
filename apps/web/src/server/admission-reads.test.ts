import { createAgent, createUser, listAgentMessages, mintAgentToken } from "@switchboard/core";
import { appendEvents, createTestDeps, taggedEvent, testChat } from "@switchboard/core/testing";
import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as history from "../../app/api/agent/v1/conversations/[conversationId]/messages/route";
import * as me from "../../app/api/agent/v1/me/route";
import * as updates from "../../app/api/agent/v1/updates/route";
import { provideDeps } from "./deps";

// The admission statement carries the read of `GET /me`, the "anything new?" of `GET /updates`
// (decision 0075) and history's page with its access check: statements per call, counted as
// postgres.js sends them.
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

// History: the page read within the admission (`AdmissionRead.column`).
async function chatWithToken() {
  const chat = await testChat(t.deps);
  const { token } = await mintAgentToken(t.deps, chat.agent.id);
  const get = async (conversationId: string, search: string) => {
    statements.length = 0;
    const response = await history.GET(
      new Request(
        `http://localhost/api/agent/v1/conversations/${conversationId}/messages${search}`,
        { headers: { Authorization: `Bearer agent:${token}` } },
      ),
      { params: Promise.resolve({ conversationId }) },
    );
    return { status: response.status, text: await response.text(), statements: statements.length };
  };
  return { ...chat, get };
}

it("answers a page in one statement, the same bytes as serialising the messages", async () => {
  const { agent, conversationId, send, get } = await chatWithToken();
  for (const content of ["one", "two", 'three "quoted"']) await send({ type: "text", content });
  const objects = async (query: { limit: number; before?: string }) =>
    JSON.stringify(await listAgentMessages(t.deps, agent.id, conversationId, query));

  const all = await get(conversationId, "?limit=50");
  expect(all).toEqual({ status: 200, text: await objects({ limit: 50 }), statements: 1 });
  const newest = await get(conversationId, "?limit=2");
  expect(newest).toEqual({ status: 200, text: await objects({ limit: 2 }), statements: 1 });
  const before = JSON.parse(newest.text).messages[0].id;
  const older = await get(conversationId, `?limit=2&before=${before}`);
  expect(older).toEqual({
    status: 200,
    text: await objects({ limit: 2, before }),
    statements: 1,
  });
});

it("refuses within the one statement as the access check does", async () => {
  const { conversationId, get } = await chatWithToken();
  const other = await chatWithToken();
  const codeOf = (answer: { text: string }) => JSON.parse(answer.text).error.code;

  const forbidden = await other.get(conversationId, "?limit=50");
  expect([forbidden.status, codeOf(forbidden), forbidden.statements]).toEqual([
    403,
    "forbidden",
    1,
  ]);
  const unknown = await get("cnv_nothing_here", "?limit=50");
  expect([unknown.status, codeOf(unknown), unknown.statements]).toEqual([404, "not_found", 1]);
  const noAnchor = await get(conversationId, "?limit=50&before=msg_nothing_here");
  expect([noAnchor.status, codeOf(noAnchor), noAnchor.statements]).toEqual([404, "not_found", 1]);
});

it("attaches nothing for input its schemas would refuse or an id it would not mint", async () => {
  const { conversationId, get } = await chatWithToken();
  const bad = await get(conversationId, "?limit=0");
  expect([bad.status, JSON.parse(bad.text).error.code, bad.statements]).toEqual([
    400,
    "validation_error",
    1,
  ]);
  // Not a plain id: read after the input's own checks, by the handler's own statement.
  const odd = await get(conversationId, "?limit=5&before=msg%20odd");
  expect([odd.status, JSON.parse(odd.text).error.code, odd.statements]).toEqual([
    404,
    "not_found",
    2,
  ]);
});
