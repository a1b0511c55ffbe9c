import { listSelfMessages, setUserSuspended } from "@switchboard/core";
import { deps, newDeveloper } from "../support/fixtures";
import { awayFromMinuteBoundary, expectError } from "../support/http";
import { expect, test } from "../support/test";

const MESSAGES = "/api/v1/me/messages";

test("POST /v1/me/messages stores a text message in the owner's self chat", async ({ request }) => {
  const { user, auth } = await newDeveloper();
  const response = await request.post(MESSAGES, {
    headers: auth,
    data: { content: "build 42 is green" },
  });
  expect(response.status(), await response.text()).toBe(201);
  const body = await response.json();
  expect(body).toEqual({
    message: {
      id: expect.stringMatching(/^msg_/),
      conversationId: body.conversationId,
      type: "text",
      content: "build 42 is green",
      createdAt: expect.any(String),
    },
    conversationId: expect.stringMatching(/^cnv_/),
  });
  const second = await (
    await request.post(MESSAGES, { headers: auth, data: { content: "second" } })
  ).json();
  expect(second.conversationId).toBe(body.conversationId);
  const stored = await listSelfMessages(deps(), user.id);
  expect(stored.map((m) => m.content)).toEqual(["build 42 is green", "second"]);
});

test("content must be 1-10000 characters, nothing else accepted", async ({ request }) => {
  const { auth } = await newDeveloper();
  for (const data of [
    {},
    { content: "" },
    { content: "x".repeat(10_001) },
    { content: 5 },
    { content: "x", to: "me" },
  ]) {
    await expectError(
      await request.post(MESSAGES, { headers: auth, data }),
      400,
      "validation_error",
    );
  }
  expect(
    (
      await request.post(MESSAGES, { headers: auth, data: { content: "x".repeat(10_000) } })
    ).status(),
  ).toBe(201);
});

test("needs the self-chat:write scope and an active owner", async ({ request }) => {
  const scopeless = await newDeveloper({ scopes: [] });
  const error = await expectError(
    await request.post(MESSAGES, { headers: scopeless.auth, data: { content: "hi" } }),
    403,
    "scope_not_granted",
  );
  expect(error.scope).toBe("self-chat:write");
  expect((await request.get("/api/v1/me", { headers: scopeless.auth })).status()).toBe(200);

  const { user, auth } = await newDeveloper();
  await setUserSuspended(deps(), user.id, true);
  await expectError(
    await request.post(MESSAGES, { headers: auth, data: { content: "hi" } }),
    403,
    "account_suspended",
  );
});

test("30 messages per minute per key, then 429 with Retry-After", async ({ request }) => {
  const { auth } = await newDeveloper();
  const other = await newDeveloper();
  await awayFromMinuteBoundary();
  for (let i = 0; i < 30; i++) {
    const response = await request.post(MESSAGES, { headers: auth, data: { content: `m${i}` } });
    expect(response.status()).toBe(201);
  }
  const limited = await request.post(MESSAGES, {
    headers: auth,
    data: { content: "one too many" },
  });
  const error = await expectError(limited, 429, "rate_limited");
  expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
  expect(limited.headers()["retry-after"]).toBe(String(error.retryAfterSeconds));
  // The limit is per key.
  expect(
    (await request.post(MESSAGES, { headers: other.auth, data: { content: "fine" } })).status(),
  ).toBe(201);
});
