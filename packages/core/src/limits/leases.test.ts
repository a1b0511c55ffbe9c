import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { coreFailure, createTestDeps } from "../testing";
import { acquireLease, LEASE_TTL_MS, LeaseKeeper } from "./leases";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(async () => {
  await t?.close();
});

async function newAgent() {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Leaseholder",
    requestedScopes: ["messages:read"],
  });
  return agent.id;
}

/** A process of its own on the same database: its own set of held leases. */
const processDeps = () => ({ ...t.deps, leases: new LeaseKeeper(t.deps.db, t.clock) });

it("a dead process's leases stop counting once they were not renewed for the TTL", async () => {
  const agentId = await newAgent();
  const crashed = processDeps();
  const survivor = processDeps();
  for (let i = 0; i < 3; i++) await acquireLease(crashed, "stream", agentId, 3, "streams");
  const refused = await coreFailure(acquireLease(survivor, "stream", agentId, 3, "streams"));
  expect(refused?.code).toBe("rate_limited");
  // The crashed process renews nothing; just before the TTL its leases still count.
  crashed.leases.stop();
  t.clock.advance(LEASE_TTL_MS - 1000);
  expect((await coreFailure(acquireLease(survivor, "stream", agentId, 3, "streams")))?.code).toBe(
    "rate_limited",
  );
  t.clock.advance(1000);
  const lease = await acquireLease(survivor, "stream", agentId, 3, "streams");
  await lease.release();
});

it("a live process's renewal keeps its leases counting past the TTL; a release frees at once", async () => {
  const agentId = await newAgent();
  const live = processDeps();
  const other = processDeps();
  const held = [];
  for (let i = 0; i < 2; i++) held.push(await acquireLease(live, "long-poll", agentId, 2, "polls"));
  for (let round = 0; round < 3; round++) {
    t.clock.advance(LEASE_TTL_MS / 2);
    await live.leases.renew();
  }
  expect((await coreFailure(acquireLease(other, "long-poll", agentId, 2, "polls")))?.code).toBe(
    "rate_limited",
  );
  await held[0]?.release();
  // Released leases are not renewed back into existence.
  await live.leases.renew();
  const third = await acquireLease(other, "long-poll", agentId, 2, "polls");
  await third.release();
  live.leases.stop();
  other.leases.stop();
});
