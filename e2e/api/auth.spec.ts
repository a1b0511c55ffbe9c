import {
  createDeveloperKey,
  mintAgentToken,
  pauseAgent,
  resumeAgent,
  revokeAgentToken,
  revokeDeveloperKey,
  setUserSuspended,
} from "@switchboard/core";
import { deps, newAgent, newDeveloper } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

const ME = "/api/agent/v1/me";

test.describe("Agent API credentials", () => {
  test("accepts only Bearer agent:<token>", async ({ request }) => {
    const { auth, agent } = await newAgent();
    const me = await request.get(ME, { headers: auth });
    expect(me.status()).toBe(200);
    expect((await me.json()).id).toBe(agent.id);

    const { key } = await newDeveloper();
    const token = auth.Authorization.slice("Bearer agent:".length);
    for (const header of [
      undefined,
      `Bearer dev:${key}`,
      `Bearer ${token}`,
      `Basic ${Buffer.from(`agent:${token}`).toString("base64")}`,
      "Bearer agent:sbat_not-a-real-token",
    ]) {
      const response = await request.get(ME, { headers: header ? { Authorization: header } : {} });
      await expectError(response, 401, "unauthorized");
    }
  });

  test("refuses a console session cookie", async ({ request }) => {
    const response = await request.get(ME, {
      headers: { Cookie: "next-auth.session-token=anything; __Secure-next-auth.session-token=x" },
    });
    await expectError(response, 401, "unauthorized");
  });

  test("answers token_revoked and token_expired", async ({ request }) => {
    const { agent, auth } = await newAgent();
    const expiring = await mintAgentToken(deps(), agent.id, {
      expiresAt: new Date(Date.now() + 1500),
    });
    expect(
      (
        await request.get(ME, { headers: { Authorization: `Bearer agent:${expiring.token}` } })
      ).status(),
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    await expectError(
      await request.get(ME, { headers: { Authorization: `Bearer agent:${expiring.token}` } }),
      401,
      "token_expired",
    );

    await revokeAgentToken(deps(), { token: auth.Authorization.slice("Bearer agent:".length) });
    await expectError(await request.get(ME, { headers: auth }), 401, "token_revoked");
  });

  test("answers 401 while the owner account is unavailable", async ({ request }) => {
    const { owner, auth } = await newAgent();
    await setUserSuspended(deps(), owner.id, true);
    await expectError(await request.get(ME, { headers: auth }), 401, "unauthorized");
    await setUserSuspended(deps(), owner.id, false);
    expect((await request.get(ME, { headers: auth })).status()).toBe(200);
  });

  test("a paused agent gets 403 agent_paused on every call, and resuming restores the same token", async ({
    request,
  }) => {
    const { agent, auth } = await newAgent();
    await pauseAgent(deps(), agent.id);
    const paused = await expectError(await request.get(ME, { headers: auth }), 403, "agent_paused");
    expect(paused.message).toMatch(/owner/);
    // Account state is checked before the body is even looked at.
    await expectError(
      await request.patch(ME, { headers: auth, data: { displayName: "" } }),
      403,
      "agent_paused",
    );
    await resumeAgent(deps(), agent.id);
    expect((await request.get(ME, { headers: auth })).status()).toBe(200);
  });
});

test.describe("Developer API credentials", () => {
  test("accepts only Bearer dev:<key>", async ({ request }) => {
    const { user, auth, key } = await newDeveloper();
    const me = await request.get("/api/v1/me", { headers: auth });
    expect(me.status()).toBe(200);
    expect(await me.json()).toEqual({
      id: user.id,
      num: user.num,
      displayName: "Dev",
      avatarUrl: null,
      userType: "person",
      scopes: ["self-chat:write"],
    });

    const { auth: agentAuth } = await newAgent();
    for (const headers of [
      {},
      agentAuth,
      { Authorization: `Bearer ${key}` },
      { Authorization: "Bearer dev:sbdk_nope" },
    ]) {
      await expectError(await request.get("/api/v1/me", { headers }), 401, "unauthorized");
    }
  });

  test("answers key_revoked and key_expired", async ({ request }) => {
    const { user, key, auth } = await newDeveloper();
    const expiring = await createDeveloperKey(deps(), user.id, {
      scopes: ["self-chat:write"],
      expiresAt: new Date(Date.now() + 1500),
    });
    await new Promise((r) => setTimeout(r, 1600));
    await expectError(
      await request.get("/api/v1/me", { headers: { Authorization: `Bearer dev:${expiring.key}` } }),
      401,
      "key_expired",
    );
    await revokeDeveloperKey(deps(), { key });
    await expectError(await request.get("/api/v1/me", { headers: auth }), 401, "key_revoked");
  });
});
