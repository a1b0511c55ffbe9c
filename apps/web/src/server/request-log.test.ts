import {
  addContact,
  captureLogs,
  createAgent,
  createUser,
  log,
  mintAgentToken,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as sendMessage } from "../../app/api/agent/v1/messages/route";
import { agentRoute } from "./api-route";
import { provideDeps } from "./deps";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps(t.deps);
});
afterAll(() => t.close());

const noParams = { params: Promise.resolve({}) };

it("logs one line per request with its id, route, agent, status and time; never a token, text or query", async () => {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Logged",
    requestedScopes: ["messages:read", "messages:write"],
  });
  await addContact(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
  const { token } = await mintAgentToken(t.deps, agent.id);
  const send = (body: unknown, secret = token) =>
    sendMessage(
      new Request("http://localhost/api/agent/v1/messages?note=query-secret-77", {
        method: "POST",
        headers: { Authorization: `Bearer agent:${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
      noParams,
    );
  // A failure inside a handler: its lines carry the request's id too.
  const failing = agentRoute({}, async () => {
    log.info("working on it");
    throw new Error("exploded while holding message-text-42");
  });

  const lines: string[] = [];
  const restore = captureLogs(lines);
  let answers: Response[];
  try {
    answers = [
      await send({ to: person.num, type: "text", content: "the person's private words" }),
      await send({ to: person.num, type: "text", content: 7 }),
      await send({ to: person.num, type: "text", content: "hi" }, "sbat_not-a-real-token-99"),
      await failing(
        new Request("http://localhost/api/agent/v1/x", {
          headers: { Authorization: `Bearer agent:${token}` },
        }),
        noParams,
      ),
    ];
  } finally {
    restore();
  }
  expect(answers.map((answer) => answer.status)).toEqual([201, 400, 401, 500]);

  const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const requests = entries.filter((entry) => entry.msg === "request");
  expect(requests).toEqual(
    answers.map((answer, i) =>
      expect.objectContaining({
        requestId: answer.headers.get("x-request-id"),
        route: i < 3 ? "sendMessage" : "unbound",
        method: i < 3 ? "POST" : "GET",
        status: answer.status,
        ms: expect.any(Number),
        ...(i !== 2 && { agentId: agent.id }),
      }),
    ),
  );
  const failingId = answers[3]?.headers.get("x-request-id");
  expect(
    entries.filter((entry) => entry.requestId === failingId).map((entry) => entry.msg),
  ).toEqual(["working on it", "unexpected error", "request"]);

  const all = lines.join("\n");
  for (const secret of [token, "sbat_not-a-real-token-99", "private words", "query-secret-77"])
    expect(all).not.toContain(secret);
});
