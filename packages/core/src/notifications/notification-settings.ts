import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { parseInput } from "../errors";
import { safeZone } from "./push-words";

const { notificationSettings } = schema;

const clockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM");

/** A person's notification settings; each push is on by default. */
export const NotificationSettings = z.object({
  newCard: z.boolean(),
  agentMessage: z.boolean(),
  expiryReminder: z.boolean(),
  ownerAlerts: z.boolean(),
  showText: z.boolean(),
  quietFrom: clockTime.nullable(),
  quietTo: clockTime.nullable(),
  timeZone: z
    .string()
    .min(1)
    .max(100)
    .refine((zone) => safeZone(zone) === zone, { message: "must be an IANA time zone" }),
  quietHoldsCards: z.boolean(),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export const defaultNotificationSettings: NotificationSettings = {
  newCard: true,
  agentMessage: true,
  expiryReminder: true,
  ownerAlerts: true,
  showText: true,
  quietFrom: null,
  quietTo: null,
  timeZone: "UTC",
  quietHoldsCards: false,
};

export async function readNotificationSettings(
  deps: Pick<CoreDeps, "db">,
  userId: string,
): Promise<NotificationSettings> {
  const [row] = await deps.db
    .select()
    .from(notificationSettings)
    .where(eq(notificationSettings.userId, userId));
  if (!row) return defaultNotificationSettings;
  const { userId: _user, updatedAt: _at, ...settings } = row;
  return settings;
}

/** Changes some settings; quiet hours come as a pair (both set, or both null). */
export async function updateNotificationSettings(
  deps: CoreDeps,
  userId: string,
  input: unknown,
): Promise<NotificationSettings> {
  const change = parseInput(
    NotificationSettings.partial().refine(
      (s) => (s.quietFrom === undefined) === (s.quietTo === undefined),
      { message: "quiet hours need both from and to", path: ["quietTo"] },
    ),
    input,
  );
  const next = { ...(await readNotificationSettings(deps, userId)), ...change };
  if ((next.quietFrom === null) !== (next.quietTo === null)) {
    next.quietFrom = null;
    next.quietTo = null;
  }
  const values = { ...next, userId, updatedAt: deps.clock.now() };
  await deps.db
    .insert(notificationSettings)
    .values(values)
    .onConflictDoUpdate({ target: notificationSettings.userId, set: values });
  return next;
}
