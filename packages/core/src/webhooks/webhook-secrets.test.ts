import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CoreDeps } from "../deps";
import { KeyUnavailableError } from "../errors";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { retireKeysKeptInDatabase } from "../settings";
import { createTestDeps, taggedEvent } from "../testing";
import { deliverWebhook } from "./deliver-webhook";
import { currentSealPrefix, openSecret } from "./sealed-secret";
import {
  agentSigningSecrets,
  putWebhook,
  rotateWebhookSecret,
  sealStoredWebhookSecrets,
} from "./webhook-config";

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
    const sealed = (await stored(one)).secret;
    expect(() => openSecret(t.deps, two, sealed)).toThrow();
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

  it("without SECRETS_KEY nothing is sealed or opened, and no key is made into the database", async () => {
    const agentId = await newAgent();
    await putWebhook(t.deps, agentId, url);
    const keyless: CoreDeps = { ...t.deps, config: { ...t.deps.config, SECRETS_KEY: undefined } };
    await expect(putWebhook(keyless, agentId, url)).rejects.toThrow(KeyUnavailableError);
    await expect(agentSigningSecrets(keyless, agentId)).rejects.toThrow(/SECRETS_KEY is not set/);
    expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
  });

  it("a sealing key an earlier version kept in the database is retired: what it sealed is sealed again under SECRETS_KEY, then the row goes", async () => {
    const legacyKey = "a key an earlier version generated, 32+ chars";
    const before: CoreDeps = { ...t.deps, config: { ...t.deps.config, SECRETS_KEY: legacyKey } };
    const agentId = await newAgent();
    const { secret } = await putWebhook(before, agentId, url);
    const rotated = await rotateWebhookSecret(before, agentId);
    await t.deps.db.insert(schema.instanceSettings).values([
      { key: "secrets_key", value: legacyKey, updatedAt: t.clock.now() },
      {
        key: "auth_secret",
        value: "an earlier session key, 32+ characters",
        updatedAt: t.clock.now(),
      },
    ]);
    // Under the key in use the legacy value does not open (it is another key) …
    await expect(agentSigningSecrets(t.deps, agentId)).rejects.toThrow(KeyUnavailableError);
    expect(await retireKeysKeptInDatabase(t.deps)).toEqual(
      expect.arrayContaining(["auth_secret", "secrets_key"]),
    );
    // … after retiring, both secrets are sealed under it and sign, and no key is left behind.
    const row = await stored(agentId);
    expect(row.secret.startsWith(currentSealPrefix(t.deps))).toBe(true);
    expect(row.previousSecret?.startsWith(currentSealPrefix(t.deps))).toBe(true);
    expect(await signedWith(t.deps, agentId, [secret, rotated.secret])).toEqual([
      secret,
      rotated.secret,
    ]);
    expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
    expect(await retireKeysKeptInDatabase(t.deps)).toEqual([]);
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
        openSecret(t.deps, agentId, row.secret),
        openSecret(t.deps, agentId, row.previousSecret as string),
      ];
      expect(kept.sort()).toEqual([a?.secret, b?.secret].sort());
    }
  });
});
