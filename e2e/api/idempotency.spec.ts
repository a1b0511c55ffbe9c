import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { listAgentActions, listAgentMessages } from "@switchboard/core";
import { deps, newContact, newDeveloper, PNG_1X1 } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

/**
 * Retries that never send twice (decision 0060): an `Idempotency-Key` on a POST, over REST and
 * MCP, against the running service; what was done is read back from history.
 */
const base = () => `http://localhost:${process.env.E2E_PORT}`;

async function contents(agentId: string, conversationId: string) {
  const { messages } = await listAgentMessages(deps(), agentId, conversationId, { limit: 100 });
  return messages.map((m) => m.content);
}

async function post(path: string, auth: Record<string, string>, key: string | null, body: unknown) {
  const response = await fetch(`${base()}/api${path}`, {
    method: "POST",
    headers: {
      ...auth,
      "Content-Type": "application/json",
      ...(key !== null && { "Idempotency-Key": key }),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

test("a retried message with the same key is sent once and answered with the same bytes", async () => {
  const { agent, auth, person, conversationId } = await newContact();
  const body = { to: person.num, type: "text", content: "exactly once" };
  const first = await post("/agent/v1/messages", auth, "retry-1", body);
  expect(first.status).toBe(201);
  expect(first.headers.get("idempotent-replayed")).toBeNull();
  // The same request, its keys in another order: the same request.
  const again = await post("/agent/v1/messages", auth, "retry-1", {
    content: "exactly once",
    type: "text",
    to: person.num,
  });
  expect(again.status).toBe(201);
  expect(again.text).toBe(first.text);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(await contents(agent.id, conversationId)).toEqual(["exactly once"]);

  // Concurrent duplicates: one sends; the others replay it or are told it is still running.
  const burst = await Promise.all(
    Array.from({ length: 6 }, () =>
      post("/agent/v1/messages", auth, "burst", { ...body, content: "burst" }),
    ),
  );
  const statuses = burst.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
  expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
  const sent = burst.filter((r) => r.status === 201).map((r) => r.text);
  expect(new Set(sent).size).toBe(1);
  expect(await contents(agent.id, conversationId)).toEqual(["exactly once", "burst"]);
});

test("a different request under a used key is refused 422; a bad key 400", async () => {
  const { agent, auth, person, conversationId } = await newContact();
  const body = { to: person.num, type: "text", content: "first" };
  expect((await post("/agent/v1/messages", auth, "k", body)).status).toBe(201);
  const reused = await fetch(`${base()}/api/agent/v1/messages`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": "k" },
    body: JSON.stringify({ ...body, content: "second" }),
  });
  expect(reused.status).toBe(422);
  expect((await reused.json()).error.code).toBe("idempotency_key_reused");
  // The same key on another endpoint is another request too.
  const elsewhere = await post("/agent/v1/actions", auth, "k", {
    to: person.num,
    kind: "x",
    title: "t",
    payload: {},
  });
  expect(JSON.parse(elsewhere.text).error.code).toBe("idempotency_key_reused");
  for (const bad of ["x".repeat(256), "caf\u00e9"]) {
    const response = await post("/agent/v1/messages", auth, bad, body);
    expect(response.status, bad).toBe(400);
    expect(JSON.parse(response.text).error.code).toBe("invalid_idempotency_key");
  }
  // Without a key, a POST is a new send every time.
  await post("/agent/v1/messages", auth, null, body);
  await post("/agent/v1/messages", auth, null, body);
  expect(await contents(agent.id, conversationId)).toEqual(["first", "first", "first"]);
});

test("a retry while the first request still runs answers 409 idempotency_key_in_use", async ({
  request,
}) => {
  const { agent, auth, person, conversationId } = await newContact();
  // The agent's media server holds the image until released: the first send is still running.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = 0;
  const media = createServer(async (_req, res) => {
    asked += 1;
    await held;
    res.writeHead(200, { "Content-Type": "image/png" });
    res.end(PNG_1X1);
  });
  await new Promise<void>((resolve) => media.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(media.address() as AddressInfo).port}/a.png`;
  const body = { to: person.num, type: "image", content: "held", imageData: url };
  const first = post("/agent/v1/messages", auth, "slow", body);
  await expect.poll(() => asked).toBe(1);
  const during = await request.post("/api/agent/v1/messages", {
    headers: { ...auth, "Idempotency-Key": "slow" },
    data: body,
  });
  const error = await expectError(during, 409, "idempotency_key_in_use");
  expect(error.retryAfterSeconds).toBe(1);
  release();
  const answered = await first;
  expect(answered.status).toBe(201);
  const after = await post("/agent/v1/messages", auth, "slow", body);
  expect(after.text).toBe(answered.text);
  expect(asked).toBe(1);
  expect(await contents(agent.id, conversationId)).toEqual(["held"]);
  media.closeAllConnections();
  await new Promise((resolve) => media.close(resolve));
});

test("keys are per agent, and per developer key on the Developer API", async () => {
  const a = await newContact();
  const b = await newContact();
  for (const { auth, person } of [a, b])
    expect(
      (
        await post("/agent/v1/messages", auth, "shared", {
          to: person.num,
          type: "text",
          content: "hi",
        })
      ).headers.get("idempotent-replayed"),
    ).toBeNull();
  expect(await contents(a.agent.id, a.conversationId)).toEqual(["hi"]);
  expect(await contents(b.agent.id, b.conversationId)).toEqual(["hi"]);

  const dev = await newDeveloper();
  const self = { content: "build passed" };
  const first = await post("/v1/me/messages", dev.auth, "dev-1", self);
  expect(first.status).toBe(201);
  const again = await post("/v1/me/messages", dev.auth, "dev-1", self);
  expect(again.text).toBe(first.text);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  const other = await newDeveloper();
  const theirs = await post("/v1/me/messages", other.auth, "dev-1", self);
  expect(theirs.headers.get("idempotent-replayed")).toBeNull();
  expect(JSON.parse(theirs.text).message.id).not.toBe(JSON.parse(first.text).message.id);
});

test("MCP write tools take idempotencyKey: duplicate proposals make one card", async () => {
  const { agent, token, person, conversationId } = await newContact();
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base()}/api/agent/v1/mcp`), {
      requestInit: { headers: { Authorization: `Bearer agent:${token}` } },
    }),
  );
  const { tools } = await client.listTools();
  const propose = tools.find((tool) => tool.name === "proposeAction");
  expect(propose?.inputSchema.properties).toHaveProperty("idempotencyKey");
  expect(
    tools.find((tool) => tool.name === "getMe")?.inputSchema.properties ?? {},
  ).not.toHaveProperty("idempotencyKey");
  const args = {
    to: person.num,
    kind: "book_table",
    title: "Book a table",
    payload: { partySize: 2 },
    idempotencyKey: "card-1",
  };
  const answers = await Promise.all([
    client.callTool({ name: "proposeAction", arguments: args }),
    client.callTool({ name: "proposeAction", arguments: args }),
    client.callTool({ name: "proposeAction", arguments: args }),
  ]);
  const later = await client.callTool({ name: "proposeAction", arguments: args });
  const ok = [...answers, later].filter((a) => !a.isError);
  expect(ok.length).toBeGreaterThanOrEqual(2);
  for (const answer of [...answers, later])
    if (answer.isError)
      expect(JSON.parse((answer.content as { text: string }[])[0]?.text ?? "").error.code).toBe(
        "idempotency_key_in_use",
      );
  expect(new Set(ok.map((a) => JSON.stringify(a.structuredContent))).size).toBe(1);
  const actions = await listAgentActions(deps(), agent.id, { limit: 50, conversationId });
  expect(actions).toHaveLength(1);

  const reused = await client.callTool({
    name: "sendMessage",
    arguments: { to: person.num, type: "text", content: "other", idempotencyKey: "card-1" },
  });
  expect(JSON.parse((reused.content as { text: string }[])[0]?.text ?? "").error.code).toBe(
    "idempotency_key_reused",
  );
  const bad = await client.callTool({
    name: "sendMessage",
    arguments: { to: person.num, type: "text", content: "x", idempotencyKey: "" },
  });
  expect(JSON.parse((bad.content as { text: string }[])[0]?.text ?? "").error.code).toBe(
    "invalid_idempotency_key",
  );
  // Nothing but the one card reached the conversation.
  const { messages } = await listAgentMessages(deps(), agent.id, conversationId, { limit: 100 });
  expect(messages).toHaveLength(1);
  expect(messages[0]?.agentActionId).toBe(actions[0]?.id);
  await client.close();
});

test("a call stored after its handler (typing) replays too; a refused call frees its key", async () => {
  const { auth, conversationId } = await newContact();
  const typing = `/agent/v1/conversations/${conversationId}/typing`;
  const first = await post(typing, auth, "t-1", { typing: true });
  expect(first.status).toBe(200);
  const again = await post(typing, auth, "t-1", { typing: true });
  expect(again.text).toBe(first.text);
  expect(again.headers.get("idempotent-replayed")).toBe("true");

  const stranger = await newContact();
  const refused = await post("/agent/v1/messages", auth, "r-1", {
    to: stranger.person.num,
    type: "text",
    content: "hello?",
  });
  expect(JSON.parse(refused.text).error.code).toBe("not_a_contact");
  const retried = await post("/agent/v1/messages", auth, "r-1", {
    to: stranger.person.num,
    type: "text",
    content: "hello?",
  });
  // Not replayed: the refusal did nothing, so the retry ran (and was refused) afresh.
  expect(retried.headers.get("idempotent-replayed")).toBeNull();
  expect(JSON.parse(retried.text).error.code).toBe("not_a_contact");
});
