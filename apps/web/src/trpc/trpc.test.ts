import { type CoreDeps, isLooking, setUserSuspended } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "~/auth/options";
import { consoleClient, failure, signUpThroughConsole } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const consoleAs = (user: SessionUser | null, deps: CoreDeps = t.deps) => consoleClient(deps, user);

const signUp = (name: string) => signUpThroughConsole(t.deps, name);

describe("auth", () => {
  it("signs a person up with a number, and refuses the same email twice with 409 conflict", async () => {
    const { email, user } = await signUp("Olive");
    expect(user).toMatchObject({ userType: "person", num: expect.stringMatching(/^\d{3}-/) });
    expect(user.num.startsWith("800-")).toBe(false);
    const again = await failure(
      consoleAs(null).auth.signUp.mutate({
        displayName: "Olive",
        email,
        password: "correct horse battery",
      }),
    );
    expect(again.data).toMatchObject({ httpStatus: 409, code: "conflict" });
  });

  it("answers field issues for a bad sign-up like the REST API does", async () => {
    const bad = await failure(
      consoleAs(null).auth.signUp.mutate({ displayName: "", email: "nope", password: "short" }),
    );
    expect(bad.message).toBe("The request failed validation");
    expect(bad.data).toMatchObject({ httpStatus: 400, code: "validation_error" });
    expect(bad.data.issues).toEqual([
      { path: "displayName", message: "must be 1-50 characters" },
      { path: "email", message: "must be an email address" },
      { path: "password", message: "must be at least 8 characters" },
    ]);
  });

  it("refuses a suspended person's session with 403 account_suspended until unsuspended", async () => {
    const { session, user } = await signUp("Sully");
    await setUserSuspended(t.deps, user.id, true);
    const refused = await failure(session.agents.list.query());
    expect(refused.data).toMatchObject({ httpStatus: 403, code: "account_suspended" });
    await setUserSuspended(t.deps, user.id, false);
    expect(await session.agents.list.query()).toEqual([]);
  });

  it("refuses signed-out calls to protected procedures with 401 unauthorized", async () => {
    const refused = await failure(consoleAs(null).agents.list.query());
    expect(refused.data).toMatchObject({ httpStatus: 401, code: "unauthorized" });
  });
});

describe("agents, tokens and pause", () => {
  it("creates an agent, mints a token shown once, pauses, resumes and revokes", async () => {
    const { session, user } = await signUp("Owner");
    const agent = await session.agents.create.mutate({
      displayName: "Concierge",
      requestedScopes: ["messages:write", "messages:read"],
      requestPrivacy: "everyone",
    });
    expect(agent).toMatchObject({ ownerId: user.id, num: expect.stringMatching(/^800-/) });
    expect(agent.requestedScopes).toEqual(["messages:read", "messages:write"]);
    expect((await session.agents.list.query()).map((a) => a.id)).toEqual([agent.id]);

    const minted = await session.tokens.mint.mutate({ agentId: agent.id });
    expect(minted.token).toMatch(/^sbat_/);
    const [listed] = await session.tokens.list.query({ agentId: agent.id });
    expect(listed).toMatchObject({ id: minted.info.id, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(minted.token);

    await session.agents.pause.mutate({ agentId: agent.id });
    expect((await session.agents.get.query({ agentId: agent.id })).agent.paused).toMatchObject({
      reason: "owner",
    });
    await session.agents.resume.mutate({ agentId: agent.id });
    expect((await session.agents.get.query({ agentId: agent.id })).agent.paused).toBeNull();

    await session.tokens.revoke.mutate({ agentId: agent.id, tokenId: minted.info.id });
    const [revoked] = await session.tokens.list.query({ agentId: agent.id });
    expect(revoked?.revokedAt).not.toBeNull();
  });

  it("answers 404 for another owner's agent on every agent procedure, changing nothing", async () => {
    const owner = await signUp("Alice");
    const other = await signUp("Mallory");
    const agent = await owner.session.agents.create.mutate({
      displayName: "Private",
      requestedScopes: [],
      requestPrivacy: "nobody",
    });
    const agentId = agent.id;
    const { info } = await owner.session.tokens.mint.mutate({ agentId });
    const attempts = [
      () => other.session.agents.get.query({ agentId }),
      () => other.session.agents.update.mutate({ agentId, change: { displayName: "Mine now" } }),
      () => other.session.agents.pause.mutate({ agentId }),
      () => other.session.agents.resume.mutate({ agentId }),
      () => other.session.tokens.list.query({ agentId }),
      () => other.session.tokens.mint.mutate({ agentId }),
      () => other.session.tokens.revoke.mutate({ agentId, tokenId: info.id }),
    ];
    for (const attempt of attempts)
      expect((await failure(attempt())).data).toMatchObject({ httpStatus: 404, code: "not_found" });

    const after = await owner.session.agents.get.query({ agentId });
    expect(after.agent).toMatchObject({ displayName: "Private", paused: null });
    expect((await owner.session.tokens.list.query({ agentId }))[0]?.revokedAt).toBeNull();
    expect(await other.session.agents.list.query()).toEqual([]);
  });

  it("puts the profile's field issues under change.<field>", async () => {
    const { session } = await signUp("Editor");
    const agent = await session.agents.create.mutate({
      displayName: "Editable",
      requestedScopes: [],
      requestPrivacy: "everyone",
    });
    const bad = await failure(
      session.agents.update.mutate({
        agentId: agent.id,
        change: { avatarUrl: "http://insecure.example.com/a.png", bio: "x".repeat(501) },
      }),
    );
    expect(bad.data).toMatchObject({ httpStatus: 400, code: "validation_error" });
    expect(bad.data.issues).toEqual(
      expect.arrayContaining([
        { path: "change.avatarUrl", message: expect.stringContaining("https") },
        { path: "change.bio", message: "must be at most 500 characters" },
      ]),
    );
    const saved = await session.agents.update.mutate({
      agentId: agent.id,
      change: { displayName: "Edited", avatarUrl: "https://cdn.example.com/a.png" },
    });
    expect(saved).toMatchObject({
      displayName: "Edited",
      avatarUrl: "https://cdn.example.com/a.png",
    });
  });

  it("answers a core refusal with its code and message (a token expiring in the past)", async () => {
    const { session } = await signUp("Clock");
    const agent = await session.agents.create.mutate({
      displayName: "Timed",
      requestedScopes: [],
      requestPrivacy: "everyone",
    });
    const past = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const refused = await failure(
      session.tokens.mint.mutate({ agentId: agent.id, expiresAt: past }),
    );
    expect(refused).toMatchObject({
      message: "expiry must be in the future",
      data: { httpStatus: 400, code: "validation_error" },
    });
  });
});

describe("developer keys and self chat", () => {
  it("creates a key shown once, lists it, revokes only the owner's own", async () => {
    const owner = await signUp("Dev");
    const other = await signUp("Eve");
    const created = await owner.session.developerKeys.create.mutate({
      scopes: ["self-chat:write"],
    });
    expect(created.key).toMatch(/^sbdk_/);
    expect(await owner.session.developerKeys.list.query()).toEqual([
      expect.objectContaining({
        id: created.info.id,
        scopes: ["self-chat:write"],
        revokedAt: null,
      }),
    ]);
    expect(await other.session.developerKeys.list.query()).toEqual([]);
    const foreign = await failure(
      other.session.developerKeys.revoke.mutate({ keyId: created.info.id }),
    );
    expect(foreign.data).toMatchObject({ httpStatus: 404, code: "not_found" });
    await owner.session.developerKeys.revoke.mutate({ keyId: created.info.id });
    const [revoked] = await owner.session.developerKeys.list.query();
    expect(revoked?.revokedAt).not.toBeNull();
    expect(await owner.session.selfChat.list.query()).toEqual([]);
  });
});

describe("settings.presence", () => {
  it("a tab looked at holds a lease under the caller's own id; a malformed tab id is a 400", async () => {
    const { session, user } = await signUpThroughConsole(t.deps, "Lena");
    await session.settings.presence.mutate({ tabId: "tab-lena-01", visible: true });
    expect(await isLooking(t.deps, user.id)).toBe(true);
    await session.settings.presence.mutate({ tabId: "tab-lena-01", visible: false });
    expect(await isLooking(t.deps, user.id)).toBe(false);
    const bad = await failure(session.settings.presence.mutate({ tabId: "x", visible: true }));
    expect(bad.data).toMatchObject({ httpStatus: 400 });
    const signedOut = await failure(
      consoleClient(t.deps, null).settings.presence.mutate({ tabId: "tab-anon-01", visible: true }),
    );
    expect(signedOut.data).toMatchObject({ httpStatus: 401 });
  });
});
