import { defineOperation } from "@switchboard/contract";
import {
  authorizeAgentRequest,
  captureLogs,
  createAgent,
  createUser,
  mintAgentToken,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentRoute, devRoute, methods, routes } from "./api-route";
import { provideDeps } from "./deps";
import { MAX_BODY_BYTES } from "./read-body";
import { ok } from "./responses";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let token: string;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps(t.deps);
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Pipeline" });
  token = (await mintAgentToken(t.deps, agent.id)).token;
});
afterAll(() => t.close());

const context = { params: Promise.resolve({}) };
const call = (handler: ReturnType<typeof agentRoute>, init: RequestInit = {}) =>
  handler(
    new Request("http://localhost/api/agent/v1/x", {
      ...init,
      headers: { Authorization: `Bearer agent:${token}`, ...init.headers },
    }),
    context,
  );

it("answers an unexpected failure with 500 internal_error and no internals", async () => {
  const lines: string[] = [];
  const restore = captureLogs(lines);
  const failing = agentRoute({}, async () => {
    throw new Error("connection to 10.0.0.7 refused at /srv/secret.ts:42");
  });
  const response = await call(failing).finally(restore);
  expect(response.status).toBe(500);
  const body = await response.json();
  expect(body.error.code).toBe("internal_error");
  expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.7|secret|stack/);
  expect(body.error.message).toContain(response.headers.get("x-request-id"));
  const logged = lines.map((line) => JSON.parse(line));
  expect(logged).toContainEqual(
    expect.objectContaining({
      requestId: response.headers.get("x-request-id"),
      msg: "unexpected error",
      err: expect.stringContaining("connection to 10.0.0.7"),
    }),
  );
});

it("validates the body after authenticating, and hands the parsed body to the handler", async () => {
  const echo = agentRoute({ body: z.strictObject({ n: z.number() }) }, async ({ body }) =>
    ok(body),
  );
  const good = await call(echo, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"n":1}',
  });
  expect(await good.json()).toEqual({ n: 1 });
  const bad = await call(echo, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"n":"1"}',
  });
  expect(bad.status).toBe(400);
  expect((await bad.json()).error.issues[0].path).toBe("n");
  const anonymous = await echo(
    new Request("http://localhost/x", { method: "POST", body: "{" }),
    context,
  );
  expect((await anonymous.json()).error.code).toBe("unauthorized");
});

it("answers 405 with Allow for methods a route does not define", async () => {
  const route = methods({ GET: agentRoute({}, async () => ok({})) });
  const response = await route.PUT(new Request("http://localhost/x", { method: "PUT" }), context);
  expect(response.status).toBe(405);
  expect(response.headers.get("allow")).toBe("GET");
  expect((await response.json()).error.code).toBe("method_not_allowed");
});

it("binds a handler to its registry entry: path parameters, input and status come from the entry", async () => {
  const op = defineOperation({
    operationId: "makeThing",
    method: "POST",
    path: "/agent/v1/things/{thingId}",
    surface: "agent",
    tag: "Test",
    summary: "Make a thing",
    scopes: [],
    body: z.strictObject({ size: z.number() }),
    status: 201,
    response: z.object({ id: z.string(), size: z.number() }),
    errors: [],
  });
  const bound = agentRoute(op, async ({ params, body }) => ({
    id: params.thingId,
    size: body.size,
  }));
  const route = routes(bound);
  const made = await route.POST(
    new Request("http://localhost/api/agent/v1/things/t1", {
      method: "POST",
      headers: { Authorization: `Bearer agent:${token}`, "Content-Type": "application/json" },
      body: '{"size":3}',
    }),
    { params: Promise.resolve({ thingId: "t1" }) },
  );
  expect(made.status).toBe(201);
  // The answer is built whole, the pipeline's headers with it.
  expect(Object.fromEntries(made.headers)).toEqual({
    "cache-control": "no-store",
    "content-type": "application/json",
    "x-request-id": expect.any(String),
    "ratelimit-limit": expect.any(String),
    "ratelimit-remaining": expect.any(String),
    "ratelimit-reset": expect.any(String),
    "ratelimit-policy": expect.stringMatching(/^\d+;w=60$/),
  });
  expect(await made.json()).toEqual({ id: "t1", size: 3 });
  // Made in process (an MCP tool call), its answer is what it serialised, with no body built.
  const inProcess = await bound.admitted(
    {
      url: new URL("http://localhost/api/agent/v1/things/t2"),
      method: "POST",
      headers: new Headers({ "Content-Type": "application/json" }),
      params: { thingId: "t2" },
      body: '{"size":4}',
    },
    () => authorizeAgentRequest(t.deps, token),
  );
  expect(inProcess).toEqual({
    status: 201,
    json: { text: '{"id":"t2","size":4}', value: { id: "t2", size: 4 } },
  });
  const other = await route.GET(new Request("http://localhost/api/agent/v1/things/t1"), context);
  expect(other.status).toBe(405);
  expect(other.headers.get("allow")).toBe("POST");
  // An entry of the other surface cannot be bound by mistake.
  expect(() => devRoute(op, async () => ({ id: "x", size: 1 }))).toThrow(/agent surface/);
});

/** A chunked body with no length that never ends, counting how many chunks were pulled. */
function endlessBody(chunkBytes = 1024 * 1024) {
  const chunk = new Uint8Array(chunkBytes).fill(0x20);
  const stats = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      stats.pulled++;
      controller.enqueue(chunk);
    },
  });
  return { body, stats };
}

describe("request bodies", () => {
  const echo = agentRoute({ body: z.object({}).loose() }, async ({ body }) => ok(body));
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    call(echo, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body,
      duplex: "half",
    } as RequestInit);

  it("stops reading a chunked body at the cap: 413 payload_too_large, never the whole body", async () => {
    const { body, stats } = endlessBody();
    const response = await post(body);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large");
    expect(stats.pulled).toBeLessThanOrEqual(MAX_BODY_BYTES / (1024 * 1024) + 2);
  });

  it("refuses a declared length over the cap before reading", async () => {
    const { body, stats } = endlessBody();
    const response = await post(body, { "Content-Length": String(MAX_BODY_BYTES + 1) });
    expect(response.status).toBe(413);
    expect(stats.pulled).toBeLessThanOrEqual(1);
  });

  it("refuses a body that is not UTF-8 instead of reading it with replacement characters", async () => {
    const response = await post(
      new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: "validation_error",
      issues: [{ path: "", message: "the body is not valid UTF-8" }],
    });
  });
});

describe("text that cannot be stored", () => {
  const route = agentRoute(
    { body: z.object({}).loose(), query: z.object({ q: z.string().optional() }) },
    async () => ok({ reached: true }),
  );
  const send = (url: string, body: string, params: Record<string, string> = {}) =>
    route(
      new Request(url, {
        method: "POST",
        headers: { Authorization: `Bearer agent:${token}`, "Content-Type": "application/json" },
        body,
      }),
      { params: Promise.resolve(params) },
    );
  const issuesOf = async (response: Response) => {
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("validation_error");
    return error.issues;
  };

  it("refuses NUL and lone surrogates anywhere in the body, naming the path", async () => {
    expect(
      await issuesOf(
        await send(
          "http://localhost/x",
          '{"content":"a\\u0000b","meta":{"tags":["ok","\\ud800"]},"k\\u0000":1}',
        ),
      ),
    ).toEqual([
      { path: "content", message: "must not contain NUL (\\u0000) characters" },
      { path: "meta.tags.1", message: "must not contain unpaired UTF-16 surrogates" },
      { path: "k\u0000", message: "must not contain NUL (\\u0000) characters" },
    ]);
    const fine = await send("http://localhost/x", '{"content":"tab\\t and 😀 \\ud83d\\ude00"}');
    expect(fine.status).toBe(200);
  });

  it("refuses them in query values and path parameters, and query escapes that are not UTF-8", async () => {
    expect(await issuesOf(await send("http://localhost/x?q=a%00b", "{}"))).toEqual([
      { path: "q", message: "must not contain NUL (\\u0000) characters" },
    ]);
    expect(await issuesOf(await send("http://localhost/x?q=%ED%A0%80", "{}"))).toEqual([
      { path: "q", message: "is not valid UTF-8" },
    ]);
    expect(
      await issuesOf(await send("http://localhost/x", "{}", { conversationId: "\u0000" })),
    ).toEqual([{ path: "conversationId", message: "must not contain NUL (\\u0000) characters" }]);
  });
});
