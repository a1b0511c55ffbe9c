import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CoreDeps } from "../deps";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps, taggedEvent } from "../testing";
import { deliverWebhook } from "./deliver-webhook";
import { openSecret } from "./sealed-secret";
import { putWebhook, rotateWebhookSecret, sealStoredWebhookSecrets } from "./webhook-config";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let url: string;
const bodies: { signature: string; body: string }[] = [];
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      bodies.push({ signature: req.headers["x-svc-signature"] as string, body });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  afterAll(() => new Promise((resolve) => server.close(resolve)));
});
afterAll(() => t.close());

async function newAgent() {
  const owner = await createUser(t.deps, {});
  return (await createAgent(t.deps, { ownerId: owner.id, displayName: "Sealed" })).id;
}

const stored = async (agentId: string) => {
  const [row] = await t.deps.db
    .select()
    .from(schema.webhooks)
    .where(eq(schema.webhooks.agentId, agentId));
  if (!row) throw new Error("no webhook row");
  return row;
};

/** Delivers one new event and answers the secrets its signature verifies with. */
async function signedWith(deps: CoreDeps, agentId: string, candidates: string[]) {
  await deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agentId)]));
  const [delivery] = await deps.db
    .select()
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.agentId, agentId))
    .orderBy(schema.webhookDeliveries.id);
  expect(await deliverWebhook(deps, delivery?.id as number)).toMatchObject({ status: "succeeded" });
  await deps.db
    .delete(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.agentId, agentId));
  const { signature, body } = bodies.at(-1) as { signature: string; body: string };
  const time = signature.split(",")[0]?.slice(2);
  return candidates.filter((secret) =>
    signature
      .split(",")
      .includes(`v1=${createHmac("sha256", secret).update(`${time}.${body}`).digest("hex")}`),
  );
}

describe("webhook secrets at rest", () => {
  it("are stored sealed (AES-256-GCM), never in clear, and still sign deliveries", async () => {
    const agentId = await newAgent();
    const { secret } = await putWebhook(t.deps, agentId, url);
    const row = await stored(agentId);
    expect(row.secret).toMatch(/^sbsec1\.[0-9a-f]{8}\./);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(await signedWith(t.deps, agentId, [secret])).toEqual([secret]);
    const rotated = await rotateWebhookSecret(t.deps, agentId);
    expect(JSON.stringify(await stored(agentId))).not.toContain(rotated.secret);
    expect(await signedWith(t.deps, agentId, [secret, rotated.secret])).toEqual([
      secret,
      rotated.secret,
    ]);
  });

  it("a sealed secret opens only for its own agent", async () => {
    const one = await newAgent();
    const two = await newAgent();
    await putWebhook(t.deps, one, url);
    await expect(openSecret(t.deps, two, (await stored(one)).secret)).rejects.toThrow();
  });

  it("rows kept in clear before sealing still sign, and are sealed at worker start", async () => {
    const agentId = await newAgent();
    await putWebhook(t.deps, agentId, url);
    const plain = "whsec_legacyplaintextsecret0123456789";
    await t.deps.db
      .update(schema.webhooks)
      .set({ secret: plain })
      .where(eq(schema.webhooks.agentId, agentId));
    expect(await signedWith(t.deps, agentId, [plain])).toEqual([plain]);
    expect(await sealStoredWebhookSecrets(t.deps)).toBeGreaterThanOrEqual(1);
    expect((await stored(agentId)).secret).toMatch(/^sbsec1\./);
    expect(await sealStoredWebhookSecrets(t.deps)).toBe(0);
    expect(await signedWith(t.deps, agentId, [plain])).toEqual([plain]);
  });

  it("use SECRETS_KEY when set; secrets sealed under the kept key still open and are sealed again", async () => {
    const agentId = await newAgent();
    const { secret } = await putWebhook(t.deps, agentId, url);
    const before = (await stored(agentId)).secret;
    const keyed: CoreDeps = {
      ...t.deps,
      config: { ...t.deps.config, SECRETS_KEY: "an operator's key, 32 characters or more" },
    };
    expect(await signedWith(keyed, agentId, [secret])).toEqual([secret]);
    expect(await sealStoredWebhookSecrets(keyed)).toBeGreaterThanOrEqual(1);
    const after = (await stored(agentId)).secret;
    expect(after.split(".")[1]).not.toBe(before.split(".")[1]);
    expect(await signedWith(keyed, agentId, [secret])).toEqual([secret]);
  });

  it("concurrent rotations chain: every secret handed out is current or previous, none lost", async () => {
    const agentId = await newAgent();
    await putWebhook(t.deps, agentId, url);
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([
        rotateWebhookSecret(t.deps, agentId),
        rotateWebhookSecret(t.deps, agentId),
      ]);
      const row = await stored(agentId);
      const kept = [
        await openSecret(t.deps, agentId, row.secret),
        await openSecret(t.deps, agentId, row.previousSecret as string),
      ];
      expect(kept.sort()).toEqual([a?.secret, b?.secret].sort());
    }
  });
});
