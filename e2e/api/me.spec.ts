import { newAgent } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

const ME = "/api/agent/v1/me";

test("GET /me answers the whole AgentMe", async ({ request }) => {
  const { agent, owner, auth } = await newAgent({
    name: "Profile",
    scopes: ["tasks:read", "messages:read"],
  });
  const response = await request.get(ME, { headers: auth });
  expect(response.status()).toBe(200);
  expect(response.headers()["ratelimit-limit"]).toBe("300");
  expect(Number(response.headers()["ratelimit-remaining"])).toBe(299);
  expect(response.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(await response.json()).toEqual({
    id: agent.id,
    num: expect.stringMatching(/^800-\d{3}-\d{3}$/),
    displayName: "Profile",
    avatarUrl: null,
    userType: "agent",
    bio: null,
    ownerId: owner.id,
    requestPrivacy: "everyone",
    requestedScopes: ["messages:read", "tasks:read"],
    createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
  });
});

test("PATCH /me changes every field and answers the new profile", async ({ request }) => {
  const { auth } = await newAgent();
  const change = {
    displayName: "x".repeat(50),
    bio: "b".repeat(500),
    avatarUrl: `https://cdn.example.com/${"a".repeat(1970)}.png`,
    requestPrivacy: "contacts_of_contacts",
    requestedScopes: ["calls:read", "messages:write", "emails:read"],
  };
  expect(change.avatarUrl.length).toBeLessThanOrEqual(2000);
  const response = await request.patch(ME, { headers: auth, data: change });
  expect(response.status(), await response.text()).toBe(200);
  expect(await response.json()).toMatchObject({
    ...change,
    requestedScopes: ["messages:write", "emails:read", "calls:read"],
  });
  const again = await (await request.get(ME, { headers: auth })).json();
  expect(again).toMatchObject({
    displayName: change.displayName,
    requestPrivacy: "contacts_of_contacts",
  });

  const cleared = await request.patch(ME, {
    headers: auth,
    data: { bio: null, avatarUrl: null, requestedScopes: [] },
  });
  expect(await cleared.json()).toMatchObject({ bio: null, avatarUrl: null, requestedScopes: [] });
});

const invalid: [string, unknown, string][] = [
  ["no field", {}, ""],
  ["empty displayName", { displayName: "" }, "displayName"],
  ["blank displayName", { displayName: "   " }, "displayName"],
  ["long displayName", { displayName: "x".repeat(51) }, "displayName"],
  ["two-line displayName", { displayName: "a\nb" }, "displayName"],
  ["null displayName", { displayName: null }, "displayName"],
  ["long bio", { bio: "b".repeat(501) }, "bio"],
  ["http avatar", { avatarUrl: "http://example.com/a.png" }, "avatarUrl"],
  ["not a URL", { avatarUrl: "not a url" }, "avatarUrl"],
  ["avatar with credentials", { avatarUrl: "https://u:p@example.com/a.png" }, "avatarUrl"],
  ["long avatar", { avatarUrl: `https://example.com/${"a".repeat(1990)}` }, "avatarUrl"],
  ["unknown privacy", { requestPrivacy: "friends" }, "requestPrivacy"],
  ["unknown scope", { requestedScopes: ["messages:read", "files:read"] }, "requestedScopes.1"],
  ["scopes not a list", { requestedScopes: "messages:read" }, "requestedScopes"],
  ["unknown field", { displayName: "ok", nickname: "x" }, ""],
  ["array body", [{ displayName: "x" }], ""],
];

for (const [name, body, path] of invalid) {
  test(`PATCH /me refuses ${name} with validation_error`, async ({ request }) => {
    const { auth } = await newAgent();
    const error = await expectError(
      await request.patch(ME, { headers: auth, data: body }),
      400,
      "validation_error",
    );
    expect(error.issues?.length).toBeGreaterThan(0);
    expect(error.issues?.map((issue) => issue.path)).toContain(path);
    const unchanged = await (await request.get(ME, { headers: auth })).json();
    expect(unchanged.displayName).toBe("Test Agent");
  });
}
