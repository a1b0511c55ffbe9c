import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "./webhooks";

const body = JSON.stringify({
  id: "evt_1",
  seq: 7,
  type: "contact.added",
  ts: "2026-01-01T00:00:00.000Z",
  agentId: "agt_1",
  payload: { user: { id: "usr_1", num: "412-555-019" }, scopes: [] },
});
const now = 1_800_000_000;
const sign = (secret: string, t = now, text = body) =>
  createHmac("sha256", secret).update(`${t}.${text}`).digest("hex");
const stripe = new Stripe("sk_test_unused");

function reason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return "accepted";
}

describe("verifyWebhook", () => {
  it("accepts the service's scheme and answers the event", () => {
    const header = `t=${now},v1=${sign("whsec_a")}`;
    expect(verifyWebhook(body, header, "whsec_a", { nowS: now })).toMatchObject({
      id: "evt_1",
      type: "contact.added",
    });
    expect(verifyWebhook(Buffer.from(body), [header], "whsec_a", { nowS: now })).toMatchObject({
      seq: 7,
    });
  });

  it("accepts a header Stripe's own tooling makes, as Stripe's verifier accepts ours", () => {
    const header = stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: "whsec_s",
      timestamp: now,
    });
    expect(verifyWebhook(body, header, "whsec_s", { nowS: now }).id).toBe("evt_1");
    const ours = `t=${now},v1=${sign("whsec_s")}`;
    expect(
      stripe.webhooks.constructEvent(body, ours, "whsec_s", 300, undefined, now),
    ).toMatchObject({ id: "evt_1" });
  });

  it("during a rotation accepts either signature, and either of the receiver's secrets", () => {
    const header = `t=${now},v1=${sign("whsec_new")},v1=${sign("whsec_old")}`;
    expect(reason(() => verifyWebhook(body, header, "whsec_old", { nowS: now }))).toBe("accepted");
    expect(reason(() => verifyWebhook(body, header, "whsec_new", { nowS: now }))).toBe("accepted");
    const oldOnly = `t=${now},v1=${sign("whsec_old")}`;
    expect(
      reason(() => verifyWebhook(body, oldOnly, ["whsec_new", "whsec_old"], { nowS: now })),
    ).toBe("accepted");
  });

  it("refuses a forged, tampered, stale, future, missing or malformed signature", () => {
    const good = `t=${now},v1=${sign("whsec_a")}`;
    expect(reason(() => verifyWebhook(body, good, "whsec_b", { nowS: now }))).toBe(
      "no_matching_signature",
    );
    expect(reason(() => verifyWebhook(`${body} `, good, "whsec_a", { nowS: now }))).toBe(
      "no_matching_signature",
    );
    expect(reason(() => verifyWebhook(body, good, "whsec_a", { nowS: now + 301 }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(reason(() => verifyWebhook(body, good, "whsec_a", { nowS: now - 301 }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(
      reason(() => verifyWebhook(body, good, "whsec_a", { nowS: now + 3000, toleranceS: 3600 })),
    ).toBe("accepted");
    expect(reason(() => verifyWebhook(body, undefined, "whsec_a", { nowS: now }))).toBe(
      "missing_signature",
    );
    expect(reason(() => verifyWebhook(body, `v1=${sign("whsec_a")}`, "whsec_a"))).toBe(
      "malformed_signature",
    );
    expect(reason(() => verifyWebhook(body, `t=${now},v0=abc`, "whsec_a"))).toBe(
      "malformed_signature",
    );
    // The timestamp is signed: moving it breaks the signature.
    const moved = `t=${now + 1},v1=${sign("whsec_a")}`;
    expect(reason(() => verifyWebhook(body, moved, "whsec_a", { nowS: now }))).toBe(
      "no_matching_signature",
    );
  });

  it("refuses a signed body that is not JSON, and needs a secret", () => {
    const header = `t=${now},v1=${sign("whsec_a", now, "not json")}`;
    expect(reason(() => verifyWebhook("not json", header, "whsec_a", { nowS: now }))).toBe(
      "invalid_json",
    );
    expect(() => verifyWebhook(body, header, [], { nowS: now })).toThrow(TypeError);
  });
});
