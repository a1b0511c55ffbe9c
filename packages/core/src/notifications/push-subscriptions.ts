import { schema } from "@switchboard/db";
import { and, count, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { checkWebhookTarget, checkWebhookUrl, type UrlPolicy } from "../net/address-policy";

const { pushSubscriptions } = schema;

/** Devices one person may have subscribed at once. */
export const MAX_PUSH_DEVICES = 10;

const base64url = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, "must be base64url")
    .refine((value) => Buffer.from(value, "base64url").length === bytes, {
      message: `must be ${bytes} bytes`,
    });

/** The browser's `PushSubscription.toJSON()`. */
export const PushSubscriptionInput = z.object({
  endpoint: z.string().min(1).max(2000),
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  keys: z.object({
    /** An uncompressed P-256 point: 65 bytes. */
    p256dh: base64url(65).refine((v) => Buffer.from(v, "base64url")[0] === 4, {
      message: "must be an uncompressed P-256 public key",
    }),
    /** The auth secret: 16 bytes. */
    auth: base64url(16),
  }),
});
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInput>;

export interface PushDevice {
  endpoint: string;
  label: string;
  createdAt: string;
  lastDeliveredAt: string | null;
}

/** Push services go through the webhooks' outbound address policy (and its development allowance). */
export function pushPolicy(deps: CoreDeps): UrlPolicy {
  return {
    allowInsecureHosts: deps.config.WEBHOOK_ALLOW_INSECURE_HOSTS,
    resolveTimeoutMs: deps.config.PUSH_TIMEOUT_MS,
  };
}

/** An endpoint checked like a webhook URL: https, a public host, no credentials; 400 on `endpoint`. */
async function checkEndpoint(deps: CoreDeps, raw: string): Promise<void> {
  const policy = pushPolicy(deps);
  try {
    await checkWebhookTarget(checkWebhookUrl(raw, policy), policy);
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    const message = error.details.issues?.[0]?.message ?? error.message;
    throw new CoreError("validation_error", `The push endpoint ${message}`, {
      issues: [{ path: "endpoint", message }],
    });
  }
}

/** "Chrome on Android" from a user agent; "A browser" when it says nothing we know. */
export function deviceLabel(userAgent: string | null | undefined): string {
  const ua = userAgent ?? "";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrome\/|Chromium\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : null;
  const system = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? "A browser";
}

/**
 * `POST /api/console/push-subscriptions`: the signed-in person's browser subscribes. The same
 * endpoint again (a browser renewing its keys) replaces its row; a new one past the tenth device
 * is refused (409 `conflict`). An endpoint another person subscribed moves to this one (the same
 * browser, signed in to another account).
 */
export async function addPushSubscription(
  deps: CoreDeps,
  userId: string,
  input: unknown,
  userAgent?: string | null,
): Promise<PushDevice> {
  const sub = parseInput(PushSubscriptionInput, input);
  await checkEndpoint(deps, sub.endpoint);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ userId: pushSubscriptions.userId })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.endpoint, sub.endpoint))
      .for("update");
    if (existing?.userId !== userId) {
      const [held] = await tx
        .select({ n: count() })
        .from(pushSubscriptions)
        .where(eq(pushSubscriptions.userId, userId));
      if ((held?.n ?? 0) >= MAX_PUSH_DEVICES)
        throw new CoreError(
          "conflict",
          `At most ${MAX_PUSH_DEVICES} devices get notifications; remove one in Settings first`,
        );
    }
    const values = {
      userId,
      endpoint: sub.endpoint,
      p256dh: sub.keys.p256dh,
      auth: sub.keys.auth,
      expiresAt: sub.expirationTime ? new Date(sub.expirationTime) : null,
      deviceLabel: deviceLabel(userAgent),
      createdAt: now,
    };
    const [saved] = await tx
      .insert(pushSubscriptions)
      .values(values)
      .onConflictDoUpdate({ target: pushSubscriptions.endpoint, set: values })
      .returning();
    return saved;
  });
  if (!row) throw new Error("push subscription insert returned nothing");
  return toDevice(row);
}

/** `DELETE /api/console/push-subscriptions` `{ endpoint }`: true when this person's row went. */
export async function removePushSubscription(
  deps: CoreDeps,
  userId: string,
  input: unknown,
): Promise<boolean> {
  const { endpoint } = parseInput(z.object({ endpoint: z.string().min(1).max(2000) }), input);
  const gone = await deps.db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)))
    .returning({ id: pushSubscriptions.id });
  return gone.length > 0;
}

/** The person's devices, newest first (settings page). */
export async function listPushDevices(deps: CoreDeps, userId: string): Promise<PushDevice[]> {
  const rows = await deps.db
    .select()
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId))
    .orderBy(desc(pushSubscriptions.createdAt));
  return rows.map(toDevice);
}

function toDevice(row: typeof pushSubscriptions.$inferSelect): PushDevice {
  return {
    endpoint: row.endpoint,
    label: row.deviceLabel,
    createdAt: row.createdAt.toISOString(),
    lastDeliveredAt: row.lastDeliveredAt?.toISOString() ?? null,
  };
}
