import { type Sql, schema, type Tx } from "@switchboard/db";
import { and, eq, gt, sql } from "drizzle-orm";
import webpush from "web-push";
import type { CoreDeps } from "../deps";
import { cancelJob, enqueueJob, enqueueJobs, enqueueSelect } from "../jobs/enqueue-job";
import { log } from "../log";
import { pinnedRequest } from "../net/pinned-request";
import { readNotificationSettings } from "./notification-settings";
import { pushPolicy } from "./push-subscriptions";
import {
  alertPush,
  type CardFacts,
  cardPush,
  closingPush,
  heldByQuietHours,
  messagePush,
  type PushDelivery,
  quietHoursEnd,
  reminderPush,
} from "./push-words";

const { actions, agents, consolePresence, messages, pushSubscriptions, users } = schema;

/** A still-pending card's reminder comes this long before it expires. */
export const REMINDER_BEFORE_MS = 3600_000;

const reminderKey = (actionId: string) => `push-reminder:${actionId}`;

/**
 * In a new card's transaction: its push to the person's devices, and its reminder an hour before
 * it expires (when it lives longer than that). Both are jobs, so the proposal's request never
 * waits on a push service and a crash loses neither.
 */
export async function enqueueCardPush(
  tx: Tx,
  card: { id: string; userId: string; expiresAt: Date },
  now: Date,
): Promise<void> {
  const remindAt = new Date(card.expiresAt.getTime() - REMINDER_BEFORE_MS);
  await enqueueJobs(
    tx,
    "push_notify",
    [
      { payload: { userId: card.userId, notice: "card", actionId: card.id } },
      ...(remindAt > now
        ? [
            {
              payload: { userId: card.userId, notice: "reminder" as const, actionId: card.id },
              runAt: remindAt,
              jobKey: reminderKey(card.id),
            },
          ]
        : []),
    ],
    "person-with-device",
  );
}

/** In a decision's (or expiry's) transaction: every device closes the card's notification. */
export async function enqueueCardClosing(
  tx: Tx,
  cards: { id: string; userId: string }[],
): Promise<void> {
  for (const card of cards) await cancelJob(tx, reminderKey(card.id));
  await enqueueJobs(
    tx,
    "push_notify",
    cards.map((card) => ({
      payload: { userId: card.userId, notice: "close" as const, actionId: card.id },
    })),
    "person-with-device",
  );
}

/** Messages from an agent to one chat within this window make one push (the latest one). */
export const MESSAGE_PUSH_WINDOW_MS = 3000;

/**
 * A message from an agent, as a CTE of the message's own insert (no statement of its own): a
 * `push_message` job, only when the person has a push device, keyed by the chat so that messages
 * within MESSAGE_PUSH_WINDOW_MS make one push of the latest (`preserve_run_at`).
 */
export function messagePushSelect(
  pg: Sql,
  message: { id: string; conversationId: string; userId: string },
  now: Date,
) {
  return enqueueSelect(
    pg,
    "push_message",
    [
      {
        payload: {
          userId: message.userId,
          conversationId: message.conversationId,
          messageId: message.id,
        },
        jobKey: `push-chat:${message.userId}:${message.conversationId}`,
        keyMode: "preserve_run_at",
        runAt: new Date(now.getTime() + MESSAGE_PUSH_WINDOW_MS),
      },
    ],
    "person-with-device",
  );
}

/** A console tab's lease on being looked at lasts this long unless renewed. */
export const PRESENCE_LEASE_MS = 75_000;
/** Leases one person may hold at once (a client making up tab ids gets no more rows). */
const MAX_TABS = 20;

/**
 * A console tab says whether the person is looking at it (visible and focused): a lease in
 * Postgres, renewed by the tab while it stays so, removed when it is hidden or blurred.
 */
export async function reportPresence(
  deps: Pick<CoreDeps, "db" | "clock">,
  userId: string,
  tabId: string,
  visible: boolean,
): Promise<void> {
  const now = deps.clock.now();
  if (!visible) {
    await deps.db
      .delete(consolePresence)
      .where(and(eq(consolePresence.userId, userId), eq(consolePresence.tabId, tabId)));
    return;
  }
  const expiresAt = new Date(now.getTime() + PRESENCE_LEASE_MS);
  await deps.db.execute(sql`with gone as (
      delete from ${consolePresence} where user_id = ${userId} and expires_at <= ${now.toISOString()}::timestamptz
    )
    insert into ${consolePresence} (user_id, tab_id, expires_at)
    select ${userId}, ${tabId}, ${expiresAt.toISOString()}::timestamptz
    where (select count(*) from ${consolePresence} where user_id = ${userId}) < ${MAX_TABS}
      or exists (select 1 from ${consolePresence} where user_id = ${userId} and tab_id = ${tabId})
    on conflict (user_id, tab_id) do update set expires_at = excluded.expires_at`);
}

/** The person is looking at one of their console tabs now (an unexpired lease). */
export async function isLooking(
  deps: Pick<CoreDeps, "db" | "clock">,
  userId: string,
): Promise<boolean> {
  const [row] = await deps.db
    .select({ tabId: consolePresence.tabId })
    .from(consolePresence)
    .where(and(eq(consolePresence.userId, userId), gt(consolePresence.expiresAt, deps.clock.now())))
    .limit(1);
  return Boolean(row);
}

/**
 * The `push_message` task: the chat's latest message from an agent, pushed when the person wants
 * agent messages and is looking at none of their console tabs; held by quiet hours.
 */
export async function notifyMessage(
  deps: CoreDeps,
  job: { userId: string; conversationId: string; messageId: string },
): Promise<NotifyResult> {
  if (!deps.config.VAPID_PUBLIC_KEY || !deps.config.VAPID_PRIVATE_KEY) return { sent: 0 };
  const now = deps.clock.now();
  const settings = await readNotificationSettings(deps, job.userId);
  if (!settings.agentMessage || (await isLooking(deps, job.userId))) return { sent: 0 };
  const [row] = await deps.db
    .select({ message: messages, agentName: users.displayName, num: users.num })
    .from(messages)
    .innerJoin(agents, eq(agents.id, messages.senderId))
    .innerJoin(users, eq(users.id, messages.senderId))
    .where(and(eq(messages.id, job.messageId), eq(messages.conversationId, job.conversationId)));
  if (!row) return { sent: 0 };
  const delivery = messagePush(
    {
      id: row.message.id,
      conversationId: row.message.conversationId,
      agentName: row.agentName ?? row.num,
      text: messageText(row.message),
    },
    settings,
  );
  if (heldByQuietHours("message", settings, now)) {
    const until = quietHoursEnd(settings, now);
    if (until) {
      await enqueueJob(deps.db, "push_message", job, {
        runAt: until,
        jobKey: `push-chat:${job.userId}:${job.conversationId}`,
      });
      return { sent: 0, heldUntil: until };
    }
  }
  return { sent: await sendToDevices(deps, job.userId, delivery, now) };
}

/** What a message says in a push: its text, or what kind of message it is. */
function messageText(message: typeof messages.$inferSelect): string {
  if (message.content) return message.content;
  return message.type === "text" ? "Sent a message" : `Sent a ${message.type}`;
}

export interface NotifyResult {
  /** Devices the push went to at once. */
  sent: number;
  /** Held by the person's quiet hours until then (the task runs again). */
  heldUntil?: Date;
}

/** The `push_notify` task: builds the push in words and sends it to each of the person's devices. */
export async function notifyPerson(
  deps: CoreDeps,
  job: { userId: string; notice: "card" | "reminder" | "close"; actionId: string },
): Promise<NotifyResult> {
  if (!deps.config.VAPID_PUBLIC_KEY || !deps.config.VAPID_PRIVATE_KEY) return { sent: 0 };
  const now = deps.clock.now();
  const [row] = await deps.db
    .select({ action: actions, agentName: users.displayName })
    .from(actions)
    .leftJoin(users, eq(users.id, actions.agentId))
    .where(eq(actions.id, job.actionId));
  if (!row || row.action.userId !== job.userId) return { sent: 0 };
  const settings = await readNotificationSettings(deps, job.userId);
  const card: CardFacts = {
    actionId: row.action.id,
    conversationId: row.action.conversationId,
    agentName: row.agentName ?? "An agent",
    kind: row.action.kind,
    skill: row.action.skill,
    title: row.action.title,
    payload: row.action.payload as Record<string, unknown>,
    expiresAt: row.action.expiresAt,
  };
  let delivery: PushDelivery;
  if (job.notice === "close") delivery = closingPush(card, row.action.state);
  else {
    const wanted = job.notice === "card" ? settings.newCard : settings.expiryReminder;
    if (row.action.state !== "pending" || row.action.expiresAt <= now || !wanted)
      return { sent: 0 };
    delivery = (job.notice === "card" ? cardPush : reminderPush)(card, settings, now);
  }
  if (heldByQuietHours(delivery.message.type, settings, now)) {
    const until = quietHoursEnd(settings, now);
    if (until && until < row.action.expiresAt) {
      await enqueueJob(deps.db, "push_notify", job, { runAt: until });
      return { sent: 0, heldUntil: until };
    }
    return { sent: 0 };
  }
  return { sent: await sendToDevices(deps, job.userId, delivery, now) };
}

/** One push to each of the person's devices; answers how many took it at once. */
async function sendToDevices(
  deps: CoreDeps,
  userId: string,
  delivery: PushDelivery,
  now: Date,
): Promise<number> {
  const devices = await deps.db
    .select({ id: pushSubscriptions.id })
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.userId, userId));
  const deadline = new Date(now.getTime() + delivery.ttl * 1000);
  let sent = 0;
  for (const device of devices)
    if ((await sendPush(deps, device.id, delivery, 1, deadline)) === "sent") sent++;
  return sent;
}

export interface OwnerAlert {
  agentId: string;
  alert: "paused" | "webhook_failing" | "webhook_disabled";
  detail?: string;
}

/** The owner's alert in words: what happened to which agent, and where to see it. */
function alertWords(alert: OwnerAlert, name: string) {
  if (alert.alert === "paused")
    return {
      title: `${name} was paused`,
      body: `It reached its daily ${alert.detail ?? ""} ceiling. Resume it in the console.`,
      url: `/agents/${alert.agentId}`,
    };
  const url = `/agents/${alert.agentId}/webhook`;
  if (alert.alert === "webhook_failing")
    return {
      title: `${name}'s webhook is failing`,
      body: `It failed ${alert.detail ?? "several"} times in a row; see its deliveries.`,
      url,
    };
  return {
    title: `${name}'s webhook was turned off`,
    body: "Its events wait: Resume and retry sends them in order.",
    url,
  };
}

/** The `push_alert` task: an agent's owner hears of it on their devices (unless they said no). */
export async function notifyOwner(deps: CoreDeps, job: OwnerAlert): Promise<NotifyResult> {
  if (!deps.config.VAPID_PUBLIC_KEY || !deps.config.VAPID_PRIVATE_KEY) return { sent: 0 };
  const now = deps.clock.now();
  const [agent] = await deps.db
    .select({ ownerId: agents.ownerId, name: users.displayName, num: users.num })
    .from(agents)
    .innerJoin(users, eq(users.id, agents.id))
    .where(eq(agents.id, job.agentId));
  if (!agent?.ownerId) return { sent: 0 };
  const settings = await readNotificationSettings(deps, agent.ownerId);
  if (!settings.ownerAlerts) return { sent: 0 };
  const delivery = alertPush({
    subject: `${job.alert}-${job.agentId}`,
    ...alertWords(job, agent.name ?? agent.num),
  });
  const until = heldByQuietHours("alert", settings, now) ? quietHoursEnd(settings, now) : null;
  if (until) {
    await enqueueJob(deps.db, "push_alert", job, { runAt: until });
    return { sent: 0, heldUntil: until };
  }
  return { sent: await sendToDevices(deps, agent.ownerId, delivery, now) };
}

export type PushOutcome = "sent" | "gone" | "retry" | "dropped";

/** The instance's VAPID details: its key pair and who to contact (a mailto of the instance). */
function vapidOf(deps: CoreDeps) {
  const host = deps.config.PUBLIC_URL ? new URL(deps.config.PUBLIC_URL).hostname : "localhost";
  return {
    subject: deps.config.VAPID_SUBJECT ?? `mailto:switchboard@${host}`,
    publicKey: deps.config.VAPID_PUBLIC_KEY ?? "",
    privateKey: deps.config.VAPID_PRIVATE_KEY ?? "",
  };
}

/** Seconds a `Retry-After` header asks for (seconds or an HTTP date), or 0. */
export function retryAfterSeconds(value: string | string[] | undefined, now: Date): number {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return 0;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/**
 * One attempt at one device (`push_send` runs it again): encrypted (aes128gcm, RFC 8291) and
 * signed (VAPID, RFC 8292) by web-push, sent through the outbound address policy. A push service
 * that answers 404 or 410 has dropped the subscription: it is removed. 429, 5xx or no answer: the
 * next attempt is a job, after PUSH_RETRY_SCHEDULE_S or the answer's Retry-After when longer,
 * while the push is still worth having (its TTL).
 */
export async function sendPush(
  deps: CoreDeps,
  subscriptionId: number,
  delivery: PushDelivery,
  attempt: number,
  deadline: Date,
): Promise<PushOutcome> {
  const [sub] = await deps.db
    .select()
    .from(pushSubscriptions)
    .where(eq(pushSubscriptions.id, subscriptionId));
  if (!sub) return "gone";
  const now = deps.clock.now();
  const ttl = Math.max(1, Math.ceil((deadline.getTime() - now.getTime()) / 1000));
  const request = webpush.generateRequestDetails(
    { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
    JSON.stringify(delivery.message),
    {
      vapidDetails: vapidOf(deps),
      TTL: ttl,
      urgency: delivery.urgency,
      topic: delivery.topic,
      contentEncoding: "aes128gcm",
    },
  );
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
  );
  const answer = await pinnedRequest(new URL(sub.endpoint), {
    method: "POST",
    headers,
    body: request.body ?? undefined,
    timeoutMs: deps.config.PUSH_TIMEOUT_MS,
    policy: pushPolicy(deps),
  });
  const status = answer.ok ? answer.status : null;
  if (status !== null && status >= 200 && status < 300) {
    await deps.db
      .update(pushSubscriptions)
      .set({ lastDeliveredAt: deps.clock.now() })
      .where(eq(pushSubscriptions.id, sub.id));
    return "sent";
  }
  if (status === 404 || status === 410) {
    await deps.db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, sub.id));
    return "gone";
  }
  const retryable =
    status === null ? answer.ok || answer.reason !== "address" : status === 429 || status >= 500;
  const schedule = deps.config.PUSH_RETRY_SCHEDULE_S;
  const wait = Math.max(
    schedule[Math.min(attempt - 1, schedule.length - 1)] ?? 60,
    answer.ok ? retryAfterSeconds(answer.headers["retry-after"], now) : 0,
  );
  const next = new Date(now.getTime() + wait * 1000);
  if (!retryable || attempt > schedule.length || next >= deadline) {
    log.warn(
      { subscriptionId, attempt, status, error: answer.ok ? undefined : answer.error },
      "push dropped",
    );
    return "dropped";
  }
  await enqueueJob(
    deps.db,
    "push_send",
    {
      subscriptionId,
      delivery: { ...delivery },
      attempt: attempt + 1,
      deadline: deadline.toISOString(),
    },
    { runAt: next, maxAttempts: 3 },
  );
  return "retry";
}

/** The `push_send` task. */
export function retryPush(
  deps: CoreDeps,
  job: {
    subscriptionId: number;
    delivery: Record<string, unknown>;
    attempt: number;
    deadline: string;
  },
): Promise<PushOutcome> {
  return sendPush(
    deps,
    job.subscriptionId,
    job.delivery as unknown as PushDelivery,
    job.attempt,
    new Date(job.deadline),
  );
}
