import {
  addContact,
  createAgent,
  createUser,
  getAgentAction,
  proposeAction,
  readEvents,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startJobRunner } from "./runner";

// Real time, a real job queue and a real worker: the one test that waits for an actual timer.
// A proposal must expire at least 60 s ahead; the clock runs that far behind while the agent
// proposes, so the timer set for a few seconds from now is a valid one and the test waits seconds.
let behindMs = 0;
const clock = { now: () => new Date(Date.now() - behindMs) };
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ clock });
});
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("an unanswered proposal expires by its durable timer at expiresAt", async () => {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Expiring",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  const expiresAt = new Date(Date.now() + 8_000);
  behindMs = 55_000;
  const { action } = await proposeAction(
    t.deps,
    { agentId: agent.id },
    { conversationId, kind: "demo.wait", title: "Wait for me", expiresAt: expiresAt.toISOString() },
  );
  behindMs = 0;

  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    await sleep(expiresAt.getTime() - Date.now() - 3_000);
    expect((await getAgentAction(t.deps, agent.id, action.id)).state).toBe("pending");

    let state = "pending";
    while (state === "pending" && Date.now() < expiresAt.getTime() + 20_000) {
      await sleep(250);
      state = (await getAgentAction(t.deps, agent.id, action.id)).state;
    }
    expect(state).toBe("expired");
    const expired = await getAgentAction(t.deps, agent.id, action.id);
    expect(Date.parse(expired.resolvedAt as string)).toBeGreaterThanOrEqual(expiresAt.getTime());
    const events = (await readEvents(t.deps, agent.id, 0, 100)).events.map((e) => e.type);
    expect(events).toContain("action.expired");
  } finally {
    await runner.stop();
  }
}, 60_000);
