import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import { createTestDeps } from "../testing";
import {
  assertAgentActive,
  authenticateAgent,
  mintAgentToken,
  revokeAgentToken,
} from "./agent-tokens";
import {
  createAgent,
  findAgent,
  getAgentMe,
  pauseAgent,
  resumeAgent,
  updateAgentMe,
} from "./agents";
import { parseAuthorization } from "./credentials";
import { authenticateDeveloper, createDeveloperKey, revokeDeveloperKey } from "./developer-keys";
import { createUser, findUser, setUserSuspended, verifyCredentials } from "./users";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CoreError) return error.code;
    throw error;
  }
  return "ok";
}

describe("users", () => {
  it("draws a person number that is not an agent number", async () => {
    const user = await createUser(t.deps, { displayName: "Ada" });
    expect(user.num).toMatch(/^\d{3}-\d{3}-\d{3}$/);
    expect(user.num.startsWith("800-")).toBe(false);
    expect(user).toMatchObject({ displayName: "Ada", userType: "person" });
  });

  it("takes a chosen number once and refuses agent numbers", async () => {
    await createUser(t.deps, { num: "555-000-111" });
    expect(await codeOf(createUser(t.deps, { num: "555-000-111" }))).toBe("conflict");
    expect(await codeOf(createUser(t.deps, { num: "800-000-111" }))).toBe("validation_error");
    expect(await codeOf(createUser(t.deps, { num: "5550001" }))).toBe("validation_error");
  });

  it("verifies passwords from stored hashes only", async () => {
    await createUser(t.deps, { email: "Grace@Example.com", password: "correct horse" });
    const row = await findUser(
      t.deps,
      (await verifyCredentials(t.deps, "grace@example.com", "correct horse"))!.id,
    );
    expect(row.passwordHash).toMatch(/^\$2[aby]\$/);
    expect(await verifyCredentials(t.deps, "grace@example.com", "wrong horse")).toBeNull();
    expect(
      await codeOf(createUser(t.deps, { email: "grace@example.com", password: "another one" })),
    ).toBe("conflict");
  });

  it("limits sign-in attempts per email, even with the right password, until the window ends", async () => {
    await createUser(t.deps, { email: "hal@example.com", password: "right one" });
    for (let i = 0; i < t.config.LIMIT_SIGNIN_ATTEMPTS; i++)
      expect(await verifyCredentials(t.deps, "hal@example.com", `guess ${i}`)).toBeNull();
    const refused = await verifyCredentials(t.deps, "HAL@example.com", "right one").catch((e) => e);
    expect(refused).toMatchObject({ code: "rate_limited" });
    expect(refused.details.retryAfterSeconds).toBeGreaterThan(0);
    // Other accounts are not affected; the next window admits attempts again.
    expect(await verifyCredentials(t.deps, "grace@example.com", "correct horse")).not.toBeNull();
    t.clock.advance(15 * 60_000);
    expect(await verifyCredentials(t.deps, "hal@example.com", "right one")).not.toBeNull();
  });
});

describe("agents and tokens", () => {
  it("creates an agent with an 800 number, scopes in consent order, found by id or number", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Helper",
      requestedScopes: ["tasks:read", "messages:write", "messages:read", "tasks:read"],
    });
    expect(agent.num).toMatch(/^800-\d{3}-\d{3}$/);
    expect(agent).toMatchObject({
      userType: "agent",
      ownerId: owner.id,
      requestPrivacy: "everyone",
    });
    expect(agent.requestedScopes).toEqual(["messages:read", "messages:write", "tasks:read"]);
    expect((await findAgent(t.deps, agent.num)).id).toBe(agent.id);
  });

  it("authenticates a minted token and refuses revoked, expired and unknown ones", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Tok" });
    const { token } = await mintAgentToken(t.deps, agent.id);
    expect((await authenticateAgent(t.deps, token)).agentId).toBe(agent.id);
    expect(await codeOf(authenticateAgent(t.deps, `${token}x`))).toBe("unauthorized");

    const expiring = await mintAgentToken(t.deps, agent.id, {
      expiresAt: new Date(t.clock.now().getTime() + 60_000),
    });
    expect(await codeOf(authenticateAgent(t.deps, expiring.token))).toBe("ok");
    t.clock.advance(60_000);
    expect(await codeOf(authenticateAgent(t.deps, expiring.token))).toBe("token_expired");

    await revokeAgentToken(t.deps, { token });
    expect(await codeOf(authenticateAgent(t.deps, token))).toBe("token_revoked");
  });

  it("answers unauthorized when the owner is suspended, and agent_paused while paused", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "P" });
    const { token } = await mintAgentToken(t.deps, agent.id);
    await pauseAgent(t.deps, agent.id);
    const principal = await authenticateAgent(t.deps, token);
    expect(() => assertAgentActive(principal)).toThrow(/paused by its owner/);
    await resumeAgent(t.deps, agent.id);
    assertAgentActive(await authenticateAgent(t.deps, token));

    await setUserSuspended(t.deps, owner.id, true);
    expect(await codeOf(authenticateAgent(t.deps, token))).toBe("unauthorized");
    await setUserSuspended(t.deps, owner.num, false);
    expect(await codeOf(authenticateAgent(t.deps, token))).toBe("ok");
  });

  it("stores only a hash of the token", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "H" });
    const { token } = await mintAgentToken(t.deps, agent.id);
    const rows = await t.deps
      .sql`select token_hash, hint from agent_tokens where agent_id = ${agent.id}`;
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("updates the profile; requested scopes replace the list", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Old",
      requestedScopes: ["notes:read"],
    });
    const me = await updateAgentMe(t.deps, agent.id, {
      displayName: "New",
      bio: "hello",
      requestedScopes: ["calls:read", "messages:read"],
    });
    expect(me).toMatchObject({
      displayName: "New",
      bio: "hello",
      requestedScopes: ["messages:read", "calls:read"],
    });
    const cleared = await updateAgentMe(t.deps, agent.id, { bio: null });
    expect(cleared.bio).toBeNull();
    expect((await getAgentMe(t.deps, agent.id)).displayName).toBe("New");
  });
});

describe("developer keys", () => {
  it("carries scopes and answers key_revoked / key_expired", async () => {
    const user = await createUser(t.deps, {});
    const { key } = await createDeveloperKey(t.deps, user.num, { scopes: ["self-chat:write"] });
    expect(await authenticateDeveloper(t.deps, key)).toMatchObject({
      userId: user.id,
      scopes: ["self-chat:write"],
    });
    await revokeDeveloperKey(t.deps, { key });
    expect(await codeOf(authenticateDeveloper(t.deps, key))).toBe("key_revoked");

    const expiring = await createDeveloperKey(t.deps, user.id, {
      scopes: ["self-chat:write"],
      expiresAt: new Date(t.clock.now().getTime() + 1000),
    });
    t.clock.advance(1000);
    expect(await codeOf(authenticateDeveloper(t.deps, expiring.key))).toBe("key_expired");
    expect(await codeOf(createDeveloperKey(t.deps, user.id, { scopes: ["nope"] }))).toBe(
      "validation_error",
    );
  });
});

describe("parseAuthorization", () => {
  it("tells the two bearer kinds apart from everything else", () => {
    expect(parseAuthorization("Bearer agent:abc")).toEqual({ kind: "agent", secret: "abc" });
    expect(parseAuthorization("Bearer dev:abc")).toEqual({ kind: "dev", secret: "abc" });
    expect(parseAuthorization("Bearer abc")).toEqual({ kind: "other" });
    expect(parseAuthorization("Basic Zm9vOmJhcg==")).toEqual({ kind: "other" });
    expect(parseAuthorization(null)).toEqual({ kind: "none" });
  });
});
