import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpOperations, operations, toolArguments } from "@switchboard/contract";
import {
  addContact,
  createAgent,
  createUser,
  decideAction,
  mintAgentToken,
  pauseAgent,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
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
