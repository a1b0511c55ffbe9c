import { operations } from "@switchboard/contract";
import { contractDrift, expectEvent } from "../support/contract";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

test("one OpenAPI 3.1 document per API, served without auth: the Agent API with its webhooks, the Developer API", async ({
  request,
}) => {
  for (const [url, surface] of [
    ["/api/agent/v1/openapi.json", "agent"],
    ["/api/v1/openapi.json", "dev"],
  ] as const) {
    const response = await request.get(url);
    expect(response.status(), url).toBe(200);
    expect(response.headers()["content-type"]).toContain("application/json");
    const doc = await response.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "/api", description: "This instance" }]);
    for (const op of operations)
      expect(doc.paths[op.path]?.[op.method.toLowerCase()]?.operationId, url).toBe(
        op.surface === surface ? op.operationId : undefined,
      );
    expect(Object.keys(doc.webhooks ?? {}).includes("message.received")).toBe(surface === "agent");
    const scheme = surface === "agent" ? "agentToken" : "developerKey";
    expect(Object.keys(doc.components.securitySchemes)).toEqual([scheme]);
    expect(doc.components.securitySchemes[scheme].bearerFormat).toBe(
      surface === "agent" ? "agent:<token>" : "dev:<key>",
    );
  }
  // The Limits table shows this instance's configuration.
  const agentDoc = await (await request.get("/api/agent/v1/openapi.json")).json();
  expect(agentDoc.info.description).toContain("| Requests | 300 per minute per agent |");
  await expectError(await request.post("/api/v1/openapi.json"), 405, "method_not_allowed");
});

test("the contract check flags answers that drift from their registry entry", () => {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const me = { id: "agt_1", num: "800-123-456", displayName: null, avatarUrl: null };
  // A field missing from the success schema.
  expect(contractDrift("GET", "/api/agent/v1/me", 200, "application/json", json(me))).toMatch(
    /getMe's response: userType/,
  );
  // The wrong success status, an error code the entry does not list, a code at another status.
  expect(
    contractDrift("POST", "/api/agent/v1/messages", 200, "application/json", json({})),
  ).toMatch(/sendMessage answers 201/);
  const error = (code: string) => json({ error: { code, message: "x" } });
  expect(
    contractDrift(
      "GET",
      "/api/agent/v1/updates",
      409,
      "application/json",
      error("too_many_pending"),
    ),
  ).toMatch(/not among pollUpdates/);
  expect(
    contractDrift("GET", "/api/agent/v1/me", 404, "application/json", error("agent_paused")),
  ).toMatch(/agent_paused maps to 403/);
  // Path parameters match, literal segments first; unknown paths may only say not_found.
  expect(
    contractDrift("GET", "/api/agent/v1/updates/cursor", 200, "application/json", json({ seq: 3 })),
  ).toBeNull();
  expect(
    contractDrift("GET", "/api/agent/v1/nope", 404, "application/json", error("not_found")),
  ).toBeNull();
  expect(() => expectEvent({ type: "message.received", payload: {} })).toThrow(/Contract drift/);
});
