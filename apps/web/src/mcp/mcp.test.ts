import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { mcpInstructions, mcpOperations, operations, toolArguments } from "@switchboard/contract";
import {
  addContact,
  createAgent,
  createUser,
  decideAction,
  mintAgentToken,
  pauseAgent,
  revokeAgentToken,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { provideDeps } from "~/server/deps";
import { agentRoutes } from "./routes";
import { handleMcp } from "./server";

/**
 * The MCP endpoint in process: the official SDK client, its fetch answered by the route's
 * handler (the e2e spec drives the same through a real server).
 */
let t: Awaited<ReturnType<typeof createTestDeps>>;
let token: string;
let personNum: string;
let personId: string;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps(t.deps);
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Mcp",
    requestedScopes: ["messages:read", "messages:write"],
  });
  token = (await mintAgentToken(t.deps, agent.id)).token;
  const person = await createUser(t.deps, { displayName: "Ada" });
  personId = person.id;
  personNum = person.num;
  await addContact(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
});
afterAll(() => t.close());

const inProcessFetch = (async (input: string | URL | Request, init?: RequestInit) =>
  handleMcp(new Request(input, init))) as typeof fetch;

async function connect(secret: string | null = `agent:${token}`): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/api/agent/v1/mcp"), {
      fetch: inProcessFetch,
      ...(secret && { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }),
    }),
  );
  return client;
}

it("has a tool, and a REST route to run it, for every Agent API operation of the registry", async () => {
  const ids = operations.filter((op) => op.surface === "agent").map((op) => op.operationId);
  expect(mcpOperations.map((op) => op.operationId)).toEqual(ids);
  expect([...agentRoutes().keys()].sort()).toEqual([...ids].sort());
  for (const op of mcpOperations) expect(() => toolArguments(op), op.operationId).not.toThrow();
  const client = await connect();
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(ids);
  const getMe = tools.find((tool) => tool.name === "getMe");
  expect(getMe?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  const send = tools.find((tool) => tool.name === "sendMessage");
  expect(send?.inputSchema.required).toEqual(expect.arrayContaining(["type"]));
  expect(tools.find((tool) => tool.name === "deletePost")?.annotations).toMatchObject({
    destructiveHint: true,
    idempotentHint: true,
  });
  await client.close();
});

it("tells a client the loop in its instructions: read updates, answer, propose, wait, then act", async () => {
  const client = await connect();
  const instructions = client.getInstructions() ?? "";
  expect(instructions).toBe(mcpInstructions);
  for (const part of [
    "pollUpdates",
    "afterSeq",
    "sendMessage",
    "proposeAction",
    "action.approved",
    "action.rejected",
    "action.expired",
    "getAction",
    "only after action.approved",
  ])
    expect(instructions).toContain(part);
  await client.close();
});

it("refuses a missing or wrong credential with 401 before any MCP message", async () => {
  await expect(connect(null)).rejects.toThrow(/401|unauthorized/i);
  await expect(connect("agent:sbat_nope")).rejects.toThrow(/401|unauthorized/i);
  const response = await handleMcp(
    new Request("http://localhost/api/agent/v1/mcp", { method: "POST", body: "{" }),
  );
  expect(response.status).toBe(401);
  expect((await response.json()).error.code).toBe("unauthorized");
});

it("answers getMe, sendMessage and a proposal's approval through the tools", async () => {
  const client = await connect();
  const me = await client.callTool({ name: "getMe", arguments: {} });
  expect(me.isError).toBeFalsy();
  expect(me.structuredContent).toMatchObject({ displayName: "Mcp" });
  expect(JSON.parse((me.content as { text: string }[])[0]?.text ?? "")).toEqual(
    me.structuredContent,
  );
  const cursor = await client.callTool({ name: "getUpdatesCursor", arguments: {} });
  const sent = await client.callTool({
    name: "sendMessage",
    arguments: { to: personNum, type: "text", content: "Hello from MCP" },
  });
  expect(sent.isError).toBeFalsy();
  expect(sent.structuredContent).toMatchObject({ message: { content: "Hello from MCP" } });
  const proposed = await client.callTool({
    name: "proposeAction",
    arguments: { to: personNum, kind: "book_table", title: "Table for 2", payload: {} },
  });
  expect(proposed.isError).toBeFalsy();
  const actionId = (proposed.structuredContent as { action: { id: string } }).action.id;
  await decideAction(t.deps, { userRef: personId, actionId, approve: true });
  const updates = await client.callTool({
    name: "pollUpdates",
    arguments: { afterSeq: (cursor.structuredContent as { seq: number }).seq, wait: 2 },
  });
  expect(updates.isError).toBeFalsy();
  const types = (updates.structuredContent as { events: { type: string }[] }).events.map(
    (event) => event.type,
  );
  expect(types).toContain("action.approved");
  await client.close();
});

it("answers refusals as tool errors carrying the envelope's code", async () => {
  const client = await connect();
  const invalid = await client.callTool({
    name: "sendMessage",
    arguments: { to: personNum, type: "text", content: "" },
  });
  expect(invalid.isError).toBe(true);
  const envelope = JSON.parse((invalid.content as { text: string }[])[0]?.text ?? "");
  expect(envelope.error.code).toBe("validation_error");
  expect(envelope.error.issues.length).toBeGreaterThan(0);
  const unknownArg = await client.callTool({ name: "getMe", arguments: { nope: 1 } });
  expect(unknownArg.isError).toBe(true);
  const stranger = await createUser(t.deps, {});
  const notContact = await client.callTool({
    name: "sendMessage",
    arguments: { to: stranger.num, type: "text", content: "hi" },
  });
  expect(notContact.isError).toBe(true);
  expect(JSON.parse((notContact.content as { text: string }[])[0]?.text ?? "").error.code).toBe(
    "not_a_contact",
  );
  await client.close();
});

it("answers a paused agent's calls with agent_paused, as REST does", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Paused" });
  const paused = (await mintAgentToken(t.deps, agent.id)).token;
  await pauseAgent(t.deps, agent.id);
  const client = await connect(`agent:${paused}`);
  const me = await client.callTool({ name: "getMe", arguments: {} });
  expect(me.isError).toBe(true);
  expect(JSON.parse((me.content as { text: string }[])[0]?.text ?? "").error.code).toBe(
    "agent_paused",
  );
  await client.close();
});

/** One POST of raw JSON-RPC messages, as an initialized MCP client sends them. */
/** One POST of these messages, its length declared as a client's fetch declares it. */
function mcpPost(secret: string, messages: unknown): Promise<Response> {
  const text = JSON.stringify(messages);
  return rawMcpPost(secret, text, Buffer.byteLength(text));
}

/** One POST of any body (a stream is sent chunked unless `declared` gives its length). */
function rawMcpPost(secret: string, body: BodyInit, declared?: number): Promise<Response> {
  return handleMcp(
    new Request("http://localhost/api/agent/v1/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": "2025-11-25",
        ...(declared && { "content-length": String(declared) }),
      },
      body,
      duplex: "half",
    } as RequestInit),
  );
}
const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

it("answers a lone tool call without the SDK's server, in the words the SDK would use", async () => {
  const connect = vi.spyOn(Server.prototype, "connect");
  try {
    const answer = async (messages: unknown) => {
      connect.mockClear();
      const response = await mcpPost(`agent:${token}`, messages);
      const body = await response.json();
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        body,
        sdk: connect.mock.calls.length > 0,
      };
    };
    for (const call of [
      toolCall(7, "getMe"),
      { ...toolCall(8, "getMe"), id: "eight" },
      toolCall(9, "noSuchTool"),
      toolCall(10, "getMe", { nope: 1 }),
    ]) {
      // A batch of one is the SDK's path, answered as one object too.
      const [plain, batched] = [await answer(call), await answer([call])];
      expect(plain.sdk, JSON.stringify(call)).toBe(false);
      expect(batched.sdk).toBe(true);
      expect(plain).toEqual({ ...batched, sdk: false });
    }
    // What the SDK refuses, or handles as more than a call, still goes to it.
    const task = { ...toolCall(11, "getMe"), params: { name: "getMe", arguments: {}, task: {} } };
    for (const message of [task, { ...toolCall(12, "getMe"), jsonrpc: "1.0" }]) {
      const routed = await answer(message);
      expect(routed.sdk, JSON.stringify(message)).toBe(true);
    }
  } finally {
    connect.mockRestore();
  }
});

/** The REST call of an operation, through its route as Next would call it. */
function restCall(secret: string, operationId: string, path: string, body?: unknown) {
  const route = agentRoutes().get(operationId);
  if (!route) throw new Error(`no route for ${operationId}`);
  return route(
    new Request(`http://localhost/api${path}`, {
      method: route.operation.method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body !== undefined && {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(JSON.stringify(body))),
        }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }),
    { params: Promise.resolve({}) },
  );
}

/** Requests left in the agent's minute, as its REST answers report them (this call counts). */
async function remaining(secret: string): Promise<number> {
  const response = await restCall(secret, "getUpdatesCursor", "/agent/v1/updates/cursor");
  return Number(response.headers.get("ratelimit-remaining"));
}

it("costs a tool call the statements of its REST call: the POST's one lookup lets it in", async () => {
  let statements = 0;
  const counting = createDb(t.config.DATABASE_URL ?? "", {
    max: 1,
    // A call's own statements: the after-commit wake-up is shared by whatever commits near it
    // (a person's may wait up to 20 ms for company), so it may land in either call's count.
    debug: (_connection, query) => {
      if (!query.includes("pg_notify")) statements++;
    },
  });
  provideDeps({ ...t.deps, db: counting.db, sql: counting.sql });
  const secret = `agent:${token}`;
  const send = { to: personNum, type: "text", content: "counted" };
  const count = async (call: () => Promise<Response>) => {
    await (await call()).text(); // once to prepare the statements on this connection
    statements = 0;
    const response = await call();
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    return statements;
  };
  try {
    const restMe = await count(() => restCall(secret, "getMe", "/agent/v1/me"));
    const mcpMe = await count(() => mcpPost(secret, toolCall(1, "getMe")));
    expect(restMe).toBe(1);
    expect(mcpMe).toBe(restMe);
    const restSend = await count(() => restCall(secret, "sendMessage", "/agent/v1/messages", send));
    const mcpSend = await count(() => mcpPost(secret, toolCall(1, "sendMessage", send)));
    // A repeat send lets its own call in, in its one statement (decision 0083), on either.
    expect(restSend).toBe(1);
    expect(mcpSend).toBe(restSend);
  } finally {
    provideDeps(t.deps);
    await counting.close();
  }
});

it("lets a known caller's lone tool call in as it runs: counted once, and refused whole once its token is revoked", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Known",
    requestedScopes: ["messages:read", "messages:write"],
  });
  await addContact(t.deps, personId, agent.id, ["messages:read", "messages:write"]);
  const minted = await mintAgentToken(t.deps, agent.id);
  const secret = `agent:${minted.token}`;
  const send = toolCall(1, "sendMessage", { to: personNum, type: "text", content: "known" });
  for (let i = 0; i < 2; i++) {
    const answer = await (await mcpPost(secret, send)).json();
    expect(answer.result.isError, JSON.stringify(answer)).toBeFalsy();
  }
  // A call answered before any route ran (no such tool) still counts its POST as one request.
  const before = await remaining(secret);
  const unknown = await (await mcpPost(secret, toolCall(2, "noSuchTool"))).json();
  expect(unknown.result.isError).toBe(true);
  expect(before - (await remaining(secret)) - 1).toBe(1);
  await revokeAgentToken(t.deps, { agentId: agent.id, tokenId: minted.info.id });
  for (const call of [send, toolCall(3, "noSuchTool")]) {
    const refused = await mcpPost(secret, call);
    expect([refused.status, (await refused.json()).error.code]).toEqual([401, "token_revoked"]);
  }
});

it("counts each tool call as one request, and each POST without one as one", async () => {
  const secret = `agent:${token}`;
  /** Requests one POST used up (the reading REST call after it counts itself). */
  const spentBy = async (messages: unknown) => {
    const before = await remaining(secret);
    expect((await mcpPost(secret, messages)).status).toBeLessThan(300);
    return before - (await remaining(secret)) - 1;
  };
  expect(await spentBy(toolCall(1, "getMe"))).toBe(1);
  // Without afterSeq the cursor read is part of the call, not a request of its own.
  expect(await spentBy(toolCall(2, "pollUpdates", { wait: 0 }))).toBe(1);
  // A batch: the POST's own request covers its first call, the second counts one more.
  expect(await spentBy([toolCall(3, "getMe"), toolCall(4, "listConversations")])).toBe(2);
  expect(await spentBy({ jsonrpc: "2.0", id: 5, method: "tools/list" })).toBe(1);
});

it("answers the request limit as a tool error, and still lists the tools", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Busy" });
  const secret = `agent:${(await mintAgentToken(t.deps, agent.id)).token}`;
  provideDeps({ ...t.deps, config: { ...t.config, LIMIT_REQUESTS_PER_MIN: 2 } });
  try {
    for (const id of [1, 2]) {
      const answer = await (await mcpPost(secret, toolCall(id, "getMe"))).json();
      expect(answer.result.isError, JSON.stringify(answer)).toBeFalsy();
    }
    const limited = await mcpPost(secret, [
      toolCall(3, "getMe"),
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
    ]);
    expect(limited.status).toBe(200);
    const [call, list] = (await limited.json()) as {
      id: number;
      result: { isError?: boolean; content?: { text: string }[]; tools?: unknown[] };
    }[];
    expect(call?.result.isError).toBe(true);
    expect(JSON.parse(call?.result.content?.[0]?.text ?? "").error.code).toBe("rate_limited");
    expect(list?.result.tools?.length).toBe(mcpOperations.length);
  } finally {
    provideDeps(t.deps);
  }
});

/** A 16 MB JSON body that streams in 64 KiB chunks and counts what the server pulled. */
function largeBody() {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= 16 * 1024 * 1024) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

it("answers a paused or rate-limited agent's large body with the refusal, unread", async () => {
  const owner = await createUser(t.deps, {});
  const paused = await createAgent(t.deps, { ownerId: owner.id, displayName: "Stopped" });
  const pausedSecret = `agent:${(await mintAgentToken(t.deps, paused.id)).token}`;
  await pauseAgent(t.deps, paused.id);
  // Chunked: cut as soon as it passes what initialize and tools/list need (64 KiB).
  const chunked = largeBody();
  const refused = await rawMcpPost(pausedSecret, chunked.stream);
  expect([refused.status, (await refused.json()).error.code]).toEqual([403, "agent_paused"]);
  expect(chunked.pulled()).toBeLessThanOrEqual(256 * 1024);
  // Declared: not a byte read.
  const declared = largeBody();
  const unread = await rawMcpPost(pausedSecret, declared.stream, 16 * 1024 * 1024);
  expect([unread.status, (await unread.json()).error.code]).toEqual([403, "agent_paused"]);
  expect(declared.pulled()).toBe(0);

  const busy = await createAgent(t.deps, { ownerId: owner.id, displayName: "Limited" });
  const busySecret = `agent:${(await mintAgentToken(t.deps, busy.id)).token}`;
  provideDeps({ ...t.deps, config: { ...t.config, LIMIT_REQUESTS_PER_MIN: 1 } });
  try {
    await mcpPost(busySecret, toolCall(1, "getMe"));
    const limited = largeBody();
    const answer = await rawMcpPost(busySecret, limited.stream);
    expect([answer.status, (await answer.json()).error.code]).toEqual([429, "rate_limited"]);
    expect(limited.pulled()).toBeLessThanOrEqual(256 * 1024);
  } finally {
    provideDeps(t.deps);
  }
  // An agent let in still sends a body of any allowed size (here: refused only as bad JSON).
  const open = largeBody();
  const read = await rawMcpPost(`agent:${token}`, open.stream);
  expect(read.status).toBe(400);
  expect(open.pulled()).toBe(16 * 1024 * 1024);
});

it("ends a waiting pollUpdates when its MCP client goes away, as a REST long-poll ends", async () => {
  const gone = new AbortController();
  const started = Date.now();
  const answered = handleMcp(
    new Request("http://localhost/api/agent/v1/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer agent:${token}`,
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
      },
      body: JSON.stringify(toolCall(1, "pollUpdates", { wait: 20 })),
      signal: gone.signal,
    }),
  );
  setTimeout(() => gone.abort(), 300);
  await answered.then((response) => response.text()).catch(() => {});
  // Not the 20 s the call asked to wait: the in-process call follows its caller's signal.
  expect(Date.now() - started).toBeLessThan(5_000);
});
