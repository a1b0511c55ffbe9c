import {
  assertAgentActive,
  authenticateAgent,
  authenticateDeveloper,
  createAgent,
  createUser,
  getAgentMe,
  listAgentTokens,
  listDeveloperKeys,
} from "@switchboard/core";
import { codeOf, createTestDeps } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcessJson } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** Runs the CLI against the test database, as an operator would (in this process). */
const cli = (...args: string[]) => runInProcessJson(t.config.DATABASE_URL as string, args);

describe("accounts", () => {
  it("creates people and agents with the contract's output shapes, owners by number or id", async () => {
    const ada = await cli(
      "user",
      "create",
      "--name",
      "Ada",
      "--type",
      "business",
      "--email",
      "ada@cli.test",
      "--password",
      "long enough",
    );
    expect(ada.code).toBe(0);
    expect(ada.out).toEqual({
      user: {
        id: expect.stringMatching(/^usr_/),
        num: expect.stringMatching(/^\d{3}-\d{3}-\d{3}$/),
        displayName: "Ada",
        userType: "business",
      },
    });
    const [byNum, byId, chosen] = await Promise.all([
      cli(
        "agent",
        "create",
        "--owner",
        ada.out.user.num,
        "--name",
        "Helper",
        "--scopes",
        "tasks:read,messages:read",
        "--privacy",
        "nobody",
        "--bio",
        "hi",
      ),
      cli("agent", "create", "--owner", ada.out.user.id, "--name", "Plain"),
      // `help` as a flag's value is a value, not a request for help.
      cli("user", "create", "--num", "321-654-987", "--name", "help"),
    ]);
    expect(byNum.out).toEqual({
      agent: {
        id: expect.stringMatching(/^agt_/),
        num: expect.stringMatching(/^800-\d{3}-\d{3}$/),
      },
    });
    expect(chosen.out.user).toMatchObject({
      num: "321-654-987",
      displayName: "help",
      userType: "person",
    });
    expect(await getAgentMe(t.deps, byNum.out.agent.id)).toMatchObject({
      ownerId: ada.out.user.id,
      requestedScopes: ["messages:read", "tasks:read"],
      requestPrivacy: "nobody",
      bio: "hi",
    });
    expect(await getAgentMe(t.deps, byId.out.agent.id)).toMatchObject({
      ownerId: ada.out.user.id,
      displayName: "Plain",
      requestedScopes: [],
      requestPrivacy: "everyone",
    });
  });

  it("mints and revokes tokens, pauses and resumes, suspends and unsuspends, by id or number", async () => {
    // Accounts made in-process (their CLI shapes are covered above); each round of CLI calls
    // runs in parallel on separate accounts so that the test spawns few rounds.
    const pausedOwner = await createUser(t.deps, {});
    const paused = await createAgent(t.deps, { ownerId: pausedOwner.id, displayName: "P" });
    const suspended = await createUser(t.deps, {});
    const ofSuspended = await createAgent(t.deps, { ownerId: suspended.id, displayName: "S" });

    const [byNum, byId, other] = await Promise.all([
      cli("token", "mint", "--agent", paused.num),
      cli(
        "token",
        "mint",
        "--agent",
        paused.id,
        "--expires",
        "2099-01-01T00:00:00+02:00",
        "--name",
        "laptop",
      ),
      cli("token", "mint", "--agent", ofSuspended.num),
    ]);
    expect(byNum.out).toEqual({ token: expect.stringMatching(/^sbat_/) });
    const principal = await authenticateAgent(t.deps, byId.out.token);
    expect(principal.agentId).toBe(paused.id);
    expect(
      (await listAgentTokens(t.deps, paused.id)).map((k) => `${k.expiresAt} ${k.name}`).sort(),
    ).toEqual(["2098-12-31T22:00:00.000Z laptop", "null null"]);
    expect(await codeOf(authenticateAgent(t.deps, other.out.token))).toBe("ok");

    const round2 = await Promise.all([
      cli("agent", "pause", "--agent", paused.num),
      cli("user", "suspend", "--user", suspended.num),
      cli("token", "revoke", "--token", byId.out.token),
    ]);
    for (const result of round2) expect(result.out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.out.token).then(assertAgentActive))).toBe(
      "agent_paused",
    );
    expect(await codeOf(authenticateAgent(t.deps, other.out.token))).toBe("unauthorized");
    expect(await codeOf(authenticateAgent(t.deps, byId.out.token))).toBe("token_revoked");

    const round3 = await Promise.all([
      cli("agent", "resume", "--agent", paused.id),
      cli("user", "unsuspend", "--user", suspended.id),
    ]);
    for (const result of round3) expect(result.out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.out.token).then(assertAgentActive))).toBe(
      "ok",
    );
    expect(await codeOf(authenticateAgent(t.deps, other.out.token).then(assertAgentActive))).toBe(
      "ok",
    );
    expect(await codeOf(authenticateAgent(t.deps, byId.out.token))).toBe("token_revoked");
  });

  it("creates and revokes developer keys with their scopes and expiry, by number or id", async () => {
    const user = await createUser(t.deps, {});
    const [{ out: key }, { out: scopeless }] = await Promise.all([
      cli("devkey", "create", "--user", user.num, "--scopes", "self-chat:write"),
      cli(
        "devkey",
        "create",
        "--user",
        user.id,
        "--scopes",
        "",
        "--expires",
        "2099-06-01T00:00:00Z",
        "--name",
        "deploy script",
      ),
    ]);
    expect(key).toEqual({ key: expect.any(String) });
    expect(await authenticateDeveloper(t.deps, key.key)).toMatchObject({
      userId: user.id,
      scopes: ["self-chat:write"],
    });
    expect((await authenticateDeveloper(t.deps, scopeless.key)).scopes).toEqual([]);
    expect(
      (await listDeveloperKeys(t.deps, user.id)).map((k) => `${k.expiresAt} ${k.name}`).sort(),
    ).toEqual(["2099-06-01T00:00:00.000Z deploy script", "null null"]);

    expect((await cli("devkey", "revoke", "--key", key.key)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateDeveloper(t.deps, key.key))).toBe("key_revoked");
    expect(await codeOf(authenticateDeveloper(t.deps, scopeless.key))).toBe("ok");
  });
});

// Issue 42: no CLI command writes a key into the database (keys live in the environment or the
// data directory's keys file). Last in the file, so it sees every command above.
it("leaves no key in the database after every command above", async () => {
  expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
});
