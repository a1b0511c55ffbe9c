import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import { wakeAfterCommit } from "../events/notifier";
import { assertAgentActive, authenticateAgent, mintAgentToken } from "../identity/agent-tokens";
import { createAgent, pauseAgent, resumeAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { coreFailure, createTestDeps } from "../testing";
import { chargeSend, getAgentUsage, recordRefusedSend } from "./charge-send";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: {
      LIMIT_MESSAGES_PER_MIN: "4",
      LIMIT_PER_RECIPIENT_PER_MIN: "2",
      LIMIT_DAILY_MESSAGES: "6",
      LIMIT_DAILY_PROPOSALS: "2",
      LIMIT_DAILY_REFUSED: "3",
    },
  });
});
afterAll(() => t.close());

async function newAgent() {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Busy" });
  const { token } = await mintAgentToken(t.deps, agent.id);
  return { agentId: agent.id, token };
}

/** A charge as a send makes it: its own transaction, then the wake-up it answers (decision 0077). */
const charge = async (agentId: string, recipientId: string | null, proposal = false) => {
  const wakes = await t.deps.db.transaction((tx) =>
    chargeSend(tx, t.deps, { agentId, recipientId, proposal }),
  );
  void wakeAfterCommit(t.deps.sql, wakes);
};

async function pauseMessage(token: string): Promise<string | null> {
  const principal = await authenticateAgent(t.deps, token);
  const error = await coreFailure((async () => assertAgentActive(principal))());
  return error?.code === "agent_paused" ? error.message : null;
}

describe("per-minute limits", () => {
  it("allows LIMIT_MESSAGES_PER_MIN sends per agent per minute; a rolled-back send uses none", async () => {
    t.clock.set("2026-06-01T09:00:05Z");
    const { agentId } = await newAgent();
    await t.deps.db
      .transaction(async (tx) => {
        await chargeSend(tx, t.deps, { agentId, recipientId: null });
        throw new Error("the send failed after charging");
      })
      .catch(() => {});
    for (let i = 0; i < 4; i++) expect(await coreFailure(charge(agentId, null))).toBeNull();
    const limited = await coreFailure(charge(agentId, null));
    expect(limited?.code).toBe("rate_limited");
    expect(limited?.details.retryAfterSeconds).toBe(55);
    expect(limited?.rate).toMatchObject({ limit: 4, remaining: 0, resetSeconds: 55 });
    t.clock.set("2026-06-01T09:01:00Z");
    expect(await coreFailure(charge(agentId, null))).toBeNull();
  });

  it("allows LIMIT_PER_RECIPIENT_PER_MIN sends to one person, then conversation_rate_limited", async () => {
    t.clock.set("2026-06-01T10:00:00Z");
    const { agentId } = await newAgent();
    expect(await coreFailure(charge(agentId, "usr_a"))).toBeNull();
    expect(await coreFailure(charge(agentId, "usr_a"))).toBeNull();
    expect((await coreFailure(charge(agentId, "usr_a")))?.code).toBe("conversation_rate_limited");
    expect(await coreFailure(charge(agentId, "usr_b"))).toBeNull();
  });
});

describe("daily ceilings", () => {
  it("pauses the agent when it reaches the message ceiling, saying so", async () => {
    t.clock.set("2026-06-02T08:00:00Z");
    const { agentId, token } = await newAgent();
    for (let i = 0; i < 5; i++) {
      t.clock.advance(60_000);
      await charge(agentId, null);
    }
    expect(await pauseMessage(token)).toBeNull();
    t.clock.advance(60_000);
    await charge(agentId, null); // the 6th reaches the ceiling of 6
    expect(await pauseMessage(token)).toMatch(/automatically.*messages/);
    expect((await getAgentUsage(t.deps, agentId)).usage).toEqual({
      messages: 6,
      proposals: 0,
      refused: 0,
    });
  });

  it("does not re-pause an agent its owner resumed the same UTC day, but does the next day", async () => {
    t.clock.set("2026-06-03T08:00:00Z");
    const { agentId, token } = await newAgent();
    for (let i = 0; i < 6; i++) {
      t.clock.advance(60_000);
      await charge(agentId, null);
    }
    expect(await pauseMessage(token)).not.toBeNull();
    await resumeAgent(t.deps, agentId);
    t.clock.advance(60_000);
    await charge(agentId, null);
    expect(await pauseMessage(token)).toBeNull();

    t.clock.set("2026-06-04T08:00:00Z");
    for (let i = 0; i < 6; i++) {
      t.clock.advance(60_000);
      await charge(agentId, null);
    }
    expect(await pauseMessage(token)).toMatch(/messages/);
  });

  it("counts proposals as messages and against their own ceiling", async () => {
    t.clock.set("2026-06-05T08:00:00Z");
    const { agentId, token } = await newAgent();
    await charge(agentId, null, true);
    t.clock.advance(60_000);
    await charge(agentId, null, true);
    expect(await pauseMessage(token)).toMatch(/proposals/);
    expect((await getAgentUsage(t.deps, agentId)).usage).toEqual({
      messages: 2,
      proposals: 2,
      refused: 0,
    });
  });

  it("pauses after LIMIT_DAILY_REFUSED refused sends", async () => {
    t.clock.set("2026-06-06T08:00:00Z");
    const { agentId, token } = await newAgent();
    await recordRefusedSend(t.deps, agentId);
    await recordRefusedSend(t.deps, agentId);
    expect(await pauseMessage(token)).toBeNull();
    await recordRefusedSend(t.deps, agentId);
    expect(await pauseMessage(token)).toMatch(/refused/);
  });

  it("leaves an owner's pause alone", async () => {
    t.clock.set("2026-06-07T08:00:00Z");
    const { agentId, token } = await newAgent();
    await pauseAgent(t.deps, agentId);
    for (let i = 0; i < 3; i++) await recordRefusedSend(t.deps, agentId);
    expect(await pauseMessage(token)).toMatch(/owner/);
  });
});

it("reports this minute's rates next to today's usage", async () => {
  t.clock.set("2026-06-08T08:00:10Z");
  const { agentId } = await newAgent();
  await charge(agentId, "usr_x");
  const usage = await getAgentUsage(t.deps, agentId);
  expect(usage).toMatchObject({
    day: "2026-06-08",
    ceilings: { messages: 6, proposals: 2, refused: 3 },
    perMinute: {
      messages: { count: 1, limit: 4, resetSeconds: 50 },
      requests: { count: 0, limit: 300 },
    },
  });
});

describe("who hears of it", () => {
  it("the owner's console hears of charges and refusals; a pause reaches its contacts too", async () => {
    t.clock.set("2026-06-09T09:00:05Z");
    const owner = await createUser(t.deps, {});
    const { id: agentId } = await createAgent(t.deps, { ownerId: owner.id, displayName: "Loud" });
    const person = await createUser(t.deps, {});
    await addContact(t.deps, person.id, agentId, []);
    const heard = { owner: [] as (string | undefined)[], person: [] as (string | undefined)[] };
    const stops = await Promise.all(
      (["owner", "person"] as const).map((who) =>
        t.deps.notifier.subscribe(`user:${(who === "owner" ? owner : person).id}`, (change) =>
          heard[who].push(change),
        ),
      ),
    );
    try {
      // The charge's statement finds the owner to wake after the commit; a refused send wakes them too.
      await charge(agentId, null);
      await expect.poll(() => heard.owner).toEqual([`activity:${agentId}`]);
      heard.owner.length = 0;
      await recordRefusedSend(t.deps, agentId, "not_a_contact");
      await expect.poll(() => heard.owner).toContain(`activity:${agentId}`);
      await pauseAgent(t.deps, agentId);
      await expect.poll(() => heard.person).toContain(`agent:${agentId}`);
      expect(heard.owner).toContain(`agent:${agentId}`);
      heard.person.length = 0;
      await resumeAgent(t.deps, agentId);
      await expect.poll(() => heard.person).toEqual([`agent:${agentId}`]);
    } finally {
      for (const stop of stops) stop();
    }
  });
});
