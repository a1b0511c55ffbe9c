import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import { createTestDeps } from "../testing";
import {
  authenticateAgent,
  authorizeAgentRequest,
  listAgentTokens,
  mintAgentToken,
  revokeAgentToken,
} from "./agent-tokens";
import { createAgent } from "./agents";
import { authenticateDeveloper, createDeveloperKey, listDeveloperKeys } from "./developer-keys";
import { createUser } from "./users";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** The row's version: it changes with every write, so an unchanged xmin means no update ran. */
async function version(table: "agent_tokens" | "developer_keys", id: string) {
  const rows = await t.deps.db.execute<{ v: string }>(
    sql`select xmin::text as v from ${sql.identifier(table)} where id = ${id}`,
  );
  return rows[0]?.v;
}

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: unknown) => {
      if (error instanceof CoreError) return error.code;
      throw error;
    },
  );

describe("agent tokens people can tell apart", () => {
  it("keep a name given at minting, bounded and without control characters", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Named" });
    await mintAgentToken(t.deps, agent.id, { name: "  prod server " });
    await mintAgentToken(t.deps, agent.id, { name: "" });
    expect((await listAgentTokens(t.deps, agent.id)).map((k) => k.name ?? "(none)").sort()).toEqual(
      ["(none)", "prod server"],
    );
    expect(await code(mintAgentToken(t.deps, agent.id, { name: "x".repeat(65) }))).toBe(
      "validation_error",
    );
    expect(await code(mintAgentToken(t.deps, agent.id, { name: "a\nb" }))).toBe("validation_error");
  });

  it("record last use at most once a minute, with the address family, in the auth statement", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Used" });
    const { token, info } = await mintAgentToken(t.deps, agent.id);
    const used = async () => (await listAgentTokens(t.deps, agent.id))[0];
    expect(await used()).toMatchObject({ lastUsedAt: null, lastUsedFamily: null });

    const first = t.clock.now();
    await authorizeAgentRequest(t.deps, token, { family: "ipv4" });
    expect(await used()).toMatchObject({
      lastUsedAt: first.toISOString(),
      lastUsedFamily: "ipv4",
    });
    const after = await version("agent_tokens", info.id);

    // Two more calls within the minute (one a stream re-check): no write at all.
    t.clock.advance(30_000);
    await authorizeAgentRequest(t.deps, token, { family: "ipv4" });
    await authenticateAgent(t.deps, token);
    expect(await version("agent_tokens", info.id)).toBe(after);
    expect((await used())?.lastUsedAt).toBe(first.toISOString());

    // A call from the other family within the minute is written at once.
    await authorizeAgentRequest(t.deps, token, { family: "ipv6" });
    expect(await used()).toMatchObject({
      lastUsedAt: t.clock.now().toISOString(),
      lastUsedFamily: "ipv6",
    });

    // A minute later the next call writes again; an unknown family keeps the last one.
    t.clock.advance(60_000);
    await authorizeAgentRequest(t.deps, token);
    expect(await used()).toMatchObject({
      lastUsedAt: t.clock.now().toISOString(),
      lastUsedFamily: "ipv6",
    });

    // A revoked token's refused calls are not uses.
    await revokeAgentToken(t.deps, { tokenId: info.id, agentId: agent.id });
    const revoked = await version("agent_tokens", info.id);
    t.clock.advance(120_000);
    expect(await code(authorizeAgentRequest(t.deps, token, { family: "ipv4" }))).toBe(
      "token_revoked",
    );
    expect(await version("agent_tokens", info.id)).toBe(revoked);
  });
});

describe("developer keys people can tell apart", () => {
  it("keep a name and record last use at most once a minute", async () => {
    const user = await createUser(t.deps, {});
    const { key, info } = await createDeveloperKey(t.deps, user.id, {
      scopes: ["self-chat:write"],
      name: "deploy script",
    });
    const listed = async () => (await listDeveloperKeys(t.deps, user.id))[0];
    expect(await listed()).toMatchObject({ name: "deploy script", lastUsedAt: null });

    const first = t.clock.now();
    expect((await authenticateDeveloper(t.deps, key, { family: "ipv6" })).userId).toBe(user.id);
    expect(await listed()).toMatchObject({
      lastUsedAt: first.toISOString(),
      lastUsedFamily: "ipv6",
    });
    const after = await version("developer_keys", info.id);
    t.clock.advance(59_000);
    await authenticateDeveloper(t.deps, key, { family: "ipv6" });
    expect(await version("developer_keys", info.id)).toBe(after);
    t.clock.advance(1_000);
    await authenticateDeveloper(t.deps, key, { family: "ipv6" });
    expect((await listed())?.lastUsedAt).toBe(t.clock.now().toISOString());
    expect(await code(authenticateDeveloper(t.deps, `${key}x`))).toBe("unauthorized");
  });
});
