import { schema } from "@switchboard/db";
import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDeps } from "../create-deps";
import { cleanupExpired } from "../maintenance/cleanup";
import { codeOf, createTestDeps } from "../testing";
import {
  assertAgentActive,
  authenticateAgent,
  authorizeAgentRequest,
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
import { consoleSessionStanding, endConsoleSession, newConsoleSessionId } from "./console-sessions";
import { parseAuthorization } from "./credentials";
import { authenticateDeveloper, createDeveloperKey, revokeDeveloperKey } from "./developer-keys";
import {
  assertSessionUserActive,
  createUser,
  setUserSuspended,
  signUpPerson,
  verifyCredentials,
} from "./users";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

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
    const id = (await verifyCredentials(t.deps, "grace@example.com", "correct horse"))!.id;
    const [row] = await t.deps.db
      .select({ passwordHash: schema.users.passwordHash })
      .from(schema.users)
      .where(eq(schema.users.id, id));
    expect(row?.passwordHash).toMatch(/^\$2[aby]\$/);
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

describe("console sessions", () => {
  it("stand active until signed out, suspended or removed; an ended one is dropped after its expiry", async () => {
    const user = await createUser(t.deps, { email: "sess@example.com", password: "long enough" });
    const [one, two] = [newConsoleSessionId(), newConsoleSessionId()];
    expect(await consoleSessionStanding(t.deps, user.id, one)).toBe("active");
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000);
    await endConsoleSession(t.deps, { userId: user.id, sessionId: one, expiresAt });
    await endConsoleSession(t.deps, { userId: user.id, sessionId: one, expiresAt }); // twice is once
    expect(await consoleSessionStanding(t.deps, user.id, one)).toBe("ended");
    expect(await consoleSessionStanding(t.deps, user.id, two)).toBe("active");
    expect(await codeOf(assertSessionUserActive(t.deps, user.id, one))).toBe("unauthorized");
    await setUserSuspended(t.deps, user.id, true);
    expect(await consoleSessionStanding(t.deps, user.id, two)).toBe("suspended");
    expect(await consoleSessionStanding(t.deps, "usr_nobody", two)).toBe("gone");
    expect(await cleanupExpired(t.deps)).toMatchObject({ endedSessions: 0 });
    t.clock.advance(3600_000 + 1);
    expect(await cleanupExpired(t.deps)).toMatchObject({ endedSessions: 1 });
  });
});

describe("console sign-in and sign-up from one network", () => {
  let small: Awaited<ReturnType<typeof createTestDeps>>;
  beforeAll(async () => {
    small = await createTestDeps({
      env: { LIMIT_SIGNIN_ATTEMPTS_PER_IP: "5", LIMIT_SIGNUPS_PER_IP: "3" },
    });
  });
  afterAll(() => small.close());
  const office = { network: "203.0.113.7" };
  const home = { network: "2001:db8:1:2::/64" };

  it("limits sign-in attempts per network across every email, apart from other networks", async () => {
    for (let i = 0; i < 5; i++)
      expect(
        await verifyCredentials(small.deps, `victim${i}@example.com`, "guess", office),
      ).toBeNull();
    const refused = await verifyCredentials(
      small.deps,
      "victim9@example.com",
      "guess",
      office,
    ).catch((e) => e);
    expect(refused).toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(
        /^Too many sign-in attempts from your network\. Try again in \d+ minutes\.$/,
      ),
    });
    expect(await verifyCredentials(small.deps, "victim9@example.com", "guess", home)).toBeNull();
    small.clock.advance(15 * 60_000);
    expect(await verifyCredentials(small.deps, "victim9@example.com", "guess", office)).toBeNull();
  });

  it("limits sign-ups per network per hour, and per email", async () => {
    const input = (n: number) => ({
      displayName: `Bot ${n}`,
      email: `bot${n}@example.com`,
      password: "long enough",
    });
    for (let i = 0; i < 3; i++) await signUpPerson(small.deps, input(i), office);
    expect(await signUpPerson(small.deps, input(3), office).catch((e) => e)).toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(/^Too many sign-ups from your network\./),
    });
    await signUpPerson(small.deps, input(3), home);
    for (let i = 0; i < small.config.LIMIT_SIGNIN_ATTEMPTS - 1; i++)
      expect(await codeOf(signUpPerson(small.deps, input(3), { network: null }))).toBe("conflict");
    expect(await codeOf(signUpPerson(small.deps, input(3), { network: null }))).toBe(
      "rate_limited",
    );
    small.clock.advance(60 * 60_000);
    expect((await signUpPerson(small.deps, input(4), office)).userType).toBe("person");
  });

  it("spends a full password check on an unknown or suspended account, so timing tells nothing", async () => {
    const known = await createUser(small.deps, {
      email: "known@example.com",
      password: "right one",
    });
    const gone = await createUser(small.deps, { email: "gone@example.com", password: "right one" });
    await setUserSuspended(small.deps, gone.id, true);
    const compare = vi.spyOn(bcrypt, "compare");
    try {
      for (const email of ["nobody@example.com", "gone@example.com", "known@example.com"]) {
        compare.mockClear();
        await verifyCredentials(small.deps, email, "right one");
        expect(compare, email).toHaveBeenCalledTimes(1);
        expect(compare.mock.calls[0]?.[0], email).toBe("right one");
      }
    } finally {
      compare.mockRestore();
    }
    expect((await verifyCredentials(small.deps, "known@example.com", "right one"))?.id).toBe(
      known.id,
    );
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

describe("the per-request counter's commit", () => {
  it("skips the WAL flush for its own statement only: the connection's next commits wait for it", async () => {
    // One connection, so the check runs where the counter did.
    const single = createDeps(t.config, { poolSize: 1 });
    try {
      const owner = await createUser(t.deps, {});
      const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Counted" });
      const { token } = await mintAgentToken(t.deps, agent.id);
      const counted = await authorizeAgentRequest(single.deps, token);
      expect(counted.rate.remaining).toBe(t.config.LIMIT_REQUESTS_PER_MIN - 1);
      const [setting] = await single.deps.sql`show synchronous_commit`;
      expect(setting?.synchronous_commit).toBe("on");
      const inTransaction = await single.deps.sql.begin(
        (tx) => tx`select current_setting('synchronous_commit') as value`,
      );
      expect(inTransaction[0]?.value).toBe("on");
    } finally {
      await single.close();
    }
  });
});

it("answers the agent's own profile from the authenticating statement, as GET /me shows it", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Profiled",
    bio: "I answer questions",
    requestedScopes: ["tasks:write", "messages:read"],
  });
  const { token } = await mintAgentToken(t.deps, agent.id);
  const authorized = await authorizeAgentRequest(t.deps, token);
  expect(authorized.me).toEqual(await getAgentMe(t.deps, agent.id));
  await updateAgentMe(t.deps, agent.id, { displayName: "Renamed", bio: null });
  expect((await authorizeAgentRequest(t.deps, token)).me).toEqual(
    await getAgentMe(t.deps, agent.id),
  );
});
