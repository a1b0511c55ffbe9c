import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CoreDeps } from "../deps";
import { createUser } from "../identity/users";
import { cleanupExpired } from "../maintenance/cleanup";
import { listAgentMessages } from "../messaging/list-agent-messages";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { codeOf, createTestDeps, newAgentContact } from "../testing";
import { putWebhook, rotateWebhookSecret } from "../webhooks/webhook-config";
import {
  claimIdempotencyKey,
  type IdempotentWrite,
  parseIdempotencyKey,
  RUNNING_LEASE_MS,
  requestFingerprint,
} from "./idempotency-keys";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
});
afterAll(() => t.close());

async function agentWithContact() {
  const { agent, person, conversationId } = await newAgentContact(t.deps, "Retrier");
  const history = async () =>
    (await listAgentMessages(t.deps, agent.id, conversationId, { limit: 100 })).messages;
  return { agent, person, history };
}

/** A keyed run of one send, as the API pipeline does it. */
async function keyedSend(agentId: string, key: string, to: string, content: string) {
  const body = { to, type: "text", content };
  const claim = await claimIdempotencyKey(
    t.deps,
    { ownerId: agentId, key, fingerprint: requestFingerprint("POST", "/messages", body) },
    201,
  );
  if ("replay" in claim) return { replayed: claim.replay.body };
  const deps: CoreDeps = { ...t.deps, idempotentWrite: claim.write };
  const result = await sendAgentMessage(deps, { agentId }, body as never);
  return { first: JSON.stringify(result), sealed: claim.write.sealed };
}

describe("Idempotency-Keys in core", () => {
  it("checks the key: 1-255 printable ASCII characters", () => {
    expect(parseIdempotencyKey("a b~c")).toBe("a b~c");
    for (const bad of ["", "x".repeat(256), "naïve", "tab\there"])
      expect(() => parseIdempotencyKey(bad)).toThrow(/printable ASCII/);
  });

  it("fingerprints the request, not its spacing or key order", () => {
    const a = requestFingerprint("POST", "/messages", { to: "1", content: "x" });
    expect(requestFingerprint("POST", "/messages", { content: "x", to: "1" })).toBe(a);
    expect(requestFingerprint("POST", "/messages", { content: "y", to: "1" })).not.toBe(a);
    expect(requestFingerprint("POST", "/actions", { content: "x", to: "1" })).not.toBe(a);
  });

  it("stores the answer in the send's transaction and replays it without sending again", async () => {
    const { agent, person, history } = await agentWithContact();
    const first = await keyedSend(agent.id, "k1", person.num, "once");
    expect(first.sealed).toBe(first.first);
    const again = await keyedSend(agent.id, "k1", person.num, "once");
    expect(again.replayed).toBe(first.first);
    expect((await history()).map((m) => m.content)).toEqual(["once"]);
  });

  it("refuses a different request under the key, and a retry while the first runs", async () => {
    const { agent, person } = await agentWithContact();
    await keyedSend(agent.id, "k2", person.num, "first");
    expect(await codeOf(keyedSend(agent.id, "k2", person.num, "second"))).toBe(
      "idempotency_key_reused",
    );
    const running = await claimIdempotencyKey(
      t.deps,
      { ownerId: agent.id, key: "k3", fingerprint: "f" },
      201,
    );
    expect("write" in running).toBe(true);
    expect(
      await codeOf(
        claimIdempotencyKey(t.deps, { ownerId: agent.id, key: "k3", fingerprint: "f" }, 201),
      ),
    ).toBe("idempotency_key_in_use");
  });

  it("keeps keys per owner: another agent's same key is its own", async () => {
    const a = await agentWithContact();
    const b = await agentWithContact();
    await keyedSend(a.agent.id, "shared", a.person.num, "from a");
    const fromB = await keyedSend(b.agent.id, "shared", b.person.num, "from b");
    expect(fromB.first).toContain("from b");
    expect((await b.history()).map((m) => m.content)).toEqual(["from b"]);
  });

  it("frees the key of a refused send, so a retry runs afresh", async () => {
    const { agent, person, history } = await agentWithContact();
    const stranger = await createUser(t.deps, {});
    expect(await codeOf(keyedSend(agent.id, "k4", stranger.num, "hi"))).toBe("not_a_contact");
    // What the pipeline does when the handler throws.
    const claim = await claimIdempotencyKey(
      t.deps,
      {
        ownerId: agent.id,
        key: "k5",
        fingerprint: requestFingerprint("POST", "/messages", { to: person.num }),
      },
      201,
    );
    await (claim as { write: IdempotentWrite }).write.release(t.deps);
    expect((await keyedSend(agent.id, "k5", person.num, "after")).first).toContain("after");
    expect((await history()).map((m) => m.content)).toEqual(["after"]);
  });

  it("rolls the send back when a retry took the key over meanwhile", async () => {
    const { agent, person, history } = await agentWithContact();
    const body = { to: person.num, type: "text", content: "slow" };
    const fingerprint = requestFingerprint("POST", "/messages", body);
    const stale = await claimIdempotencyKey(
      t.deps,
      { ownerId: agent.id, key: "k6", fingerprint },
      201,
    );
    // The first run is taken for dead past the lease; a retry claims the key.
    t.clock.advance(RUNNING_LEASE_MS + 1000);
    const retry = await claimIdempotencyKey(
      t.deps,
      { ownerId: agent.id, key: "k6", fingerprint },
      201,
    );
    expect("write" in retry).toBe(true);
    const late: CoreDeps = {
      ...t.deps,
      idempotentWrite: (stale as { write: IdempotentWrite }).write,
    };
    expect(await codeOf(sendAgentMessage(late, { agentId: agent.id }, body as never))).toBe(
      "idempotency_key_in_use",
    );
    expect(await history()).toEqual([]);
  });

  it("keeps a rotated webhook secret sealed, and replays the same secret", async () => {
    const { agent } = await agentWithContact();
    await putWebhook(t.deps, agent.id, "http://127.0.0.1:9/hook");
    const claim = await claimIdempotencyKey(
      t.deps,
      { ownerId: agent.id, key: "rot", fingerprint: "r" },
      200,
    );
    const write = (claim as { write: IdempotentWrite }).write;
    const rotated = await rotateWebhookSecret({ ...t.deps, idempotentWrite: write }, agent.id);
    const [row] = await t.deps.db.select().from(schema.idempotencyKeys);
    expect(JSON.stringify(await t.deps.db.select().from(schema.idempotencyKeys))).not.toContain(
      rotated.secret,
    );
    expect(row).toBeDefined();
    const replay = await claimIdempotencyKey(
      t.deps,
      { ownerId: agent.id, key: "rot", fingerprint: "r" },
      200,
    );
    expect(replay).toEqual({ replay: { status: 200, body: JSON.stringify(rotated) } });
  });

  it("forgets keys after 24 hours: the worker's cleanup deletes them", async () => {
    const { agent, person, history } = await agentWithContact();
    await keyedSend(agent.id, "k7", person.num, "day one");
    t.clock.advance(24 * 3600_000 + 1000);
    expect((await cleanupExpired(t.deps)).idempotencyKeys).toBeGreaterThan(0);
    await keyedSend(agent.id, "k7", person.num, "day two");
    expect((await history()).map((m) => m.content)).toEqual(["day one", "day two"]);
  });
});
