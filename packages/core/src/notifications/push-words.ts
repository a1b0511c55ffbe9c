/**
 * What a push carries (issue 37): a small JSON the service worker turns into a notification.
 * In words a person reads on a locked phone, never keys or JSON; at most 3 KB once encrypted.
 */

export interface PushMessage {
  type: "card" | "close" | "reminder" | "message" | "alert";
  /** The card's action id, the message's id, or the alert's subject. */
  id: string;
  title: string;
  body: string;
  /** The console page a click opens. */
  url: string;
  /** Notification buttons: a card's Approve and Reject (Edit is a click on the body). */
  actions: { action: "approve" | "reject"; title: string }[];
  /** A later push with the same tag replaces (or, `close`, removes) the earlier one. */
  tag: string;
}

/** How a push is sent: its lifetime at the push service, urgency and coalescing topic. */
export interface PushDelivery {
  message: PushMessage;
  /** Seconds the push service keeps it for an offline device. */
  ttl: number;
  urgency: "very-low" | "low" | "normal" | "high";
  /** RFC 8030 Topic: at most 32 base64url characters; a newer push of a topic replaces an older. */
  topic: string;
}

/** A payload's limit before encryption adds its 103 bytes (the 3 KB). */
export const MAX_PUSH_BYTES = 3 * 1024 - 103;

export interface CardFacts {
  actionId: string;
  conversationId: string;
  agentName: string;
  kind: string;
  skill: string | null;
  title: string;
  payload: Record<string, unknown>;
  expiresAt: Date;
}

export interface WordsSettings {
  showText: boolean;
  timeZone: string;
}

const verbs: Record<string, string> = {
  create: "add",
  update: "change",
  complete: "mark done",
  delete: "delete",
};

/** "Mon 30 Nov 04:01" in the person's time zone. */
export function pushTime(iso: string | Date, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const parts = new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: safeZone(timeZone),
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("weekday")} ${part("day")} ${part("month")} ${part("hour")}:${part("minute")}`;
}

/** An IANA zone Intl knows, else UTC (a stale setting must not stop a push). */
export function safeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return timeZone;
  } catch {
    return "UTC";
  }
}

/** "a reminder", "the task", "an event": what a skill works on. */
function article(verb: string, type: string): string {
  if (verb !== "create") return `the ${type}`;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** When the proposed record happens, in words: a reminder's time, a task's due, an event's start. */
function when(payload: Record<string, unknown>, timeZone: string): string | null {
  for (const field of ["reminderTime", "startTime", "dueDate"])
    if (typeof payload[field] === "string") return pushTime(payload[field] as string, timeZone);
  return null;
}

/** "add a reminder: Plumber comes, Mon 30 Nov 04:01"; a custom kind: "order place: Two pizzas". */
export function cardWords(card: CardFacts, timeZone: string): string {
  if (card.skill) {
    const [verb = "", type = ""] = card.skill.split("_");
    const time = when(card.payload, timeZone);
    const what = [card.title, time].filter(Boolean).join(", ");
    return `${verbs[verb] ?? verb} ${article(verb, type)}: ${what}`;
  }
  const kind = humanize(card.kind || "proposal");
  return `do this (${kind}): ${card.title}`;
}

/** "order.place" → "order place". */
function humanize(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .trim()
    .toLowerCase();
}

const cardUrl = (card: Pick<CardFacts, "conversationId" | "actionId">) =>
  `/chats/${card.conversationId}#card-${card.actionId}`;

const cardActions: PushMessage["actions"] = [
  { action: "approve", title: "Approve" },
  { action: "reject", title: "Reject" },
];

/** Seconds from now until the card expires (at least 1: a push service refuses 0 as "drop"). */
const secondsUntil = (at: Date, now: Date) =>
  Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));

/** A topic from an id: base64url characters only, at most 32. */
export function topicOf(prefix: string, id: string): string {
  return `${prefix}${id}`.replace(/[^A-Za-z0-9_-]/g, "").slice(-32);
}

/** A new card: "Household Planner wants to add a reminder: Plumber comes, Mon 30 Nov 04:01". */
export function cardPush(card: CardFacts, settings: WordsSettings, now: Date): PushDelivery {
  const body = settings.showText
    ? `${card.agentName} wants to ${cardWords(card, settings.timeZone)}`
    : `${card.agentName} asks for your decision`;
  return fit({
    message: {
      type: "card",
      id: card.actionId,
      title: card.agentName,
      body,
      url: cardUrl(card),
      actions: cardActions,
      tag: `card:${card.actionId}`,
    },
    ttl: secondsUntil(card.expiresAt, now),
    urgency: "high",
    topic: topicOf("card", card.actionId),
  });
}

/** One hour before a still-pending card expires (once). */
export function reminderPush(card: CardFacts, settings: WordsSettings, now: Date): PushDelivery {
  const delivery = cardPush(card, settings, now);
  const body = `Expires ${pushTime(card.expiresAt, settings.timeZone)}. ${delivery.message.body}`;
  return fit({ ...delivery, message: { ...delivery.message, type: "reminder", body } });
}

/** A card decided or expired anywhere: each device closes the notification with its tag. */
export function closingPush(
  card: Pick<CardFacts, "actionId" | "conversationId">,
  state: string,
): PushDelivery {
  return {
    message: {
      type: "close",
      id: card.actionId,
      title: "",
      body: `This proposal is ${state}`,
      url: cardUrl(card),
      actions: [],
      tag: `card:${card.actionId}`,
    },
    ttl: 24 * 3600,
    urgency: "normal",
    topic: topicOf("card", card.actionId),
  };
}

/** A message from an agent; without text shown, only who wrote. */
export function messagePush(
  message: { id: string; conversationId: string; agentName: string; text: string },
  settings: WordsSettings,
): PushDelivery {
  return fit({
    message: {
      type: "message",
      id: message.id,
      title: message.agentName,
      body: settings.showText ? message.text : `New message from ${message.agentName}`,
      url: `/chats/${message.conversationId}`,
      actions: [],
      tag: `chat:${message.conversationId}`,
    },
    ttl: 24 * 3600,
    urgency: "normal",
    topic: topicOf("chat", message.conversationId),
  });
}

/** An owner's alert: an agent paused by its ceilings, a webhook disabled or failing. */
export function alertPush(alert: {
  subject: string;
  title: string;
  body: string;
  url: string;
}): PushDelivery {
  return fit({
    message: {
      type: "alert",
      id: alert.subject,
      title: alert.title,
      body: alert.body,
      url: alert.url,
      actions: [],
      tag: `alert:${alert.subject}`,
    },
    ttl: 24 * 3600,
    urgency: "normal",
    topic: topicOf("alert", alert.subject),
  });
}

/** Shortens the body (then the title) until the JSON fits MAX_PUSH_BYTES. */
export function fit(delivery: PushDelivery): PushDelivery {
  const size = (d: PushDelivery) => Buffer.byteLength(JSON.stringify(d.message));
  let message = delivery.message;
  for (const field of ["body", "title"] as const) {
    while (size({ ...delivery, message }) > MAX_PUSH_BYTES && message[field].length > 1) {
      const chars = [...message[field]];
      const over = size({ ...delivery, message }) - MAX_PUSH_BYTES;
      const keep = Math.max(1, chars.length - Math.max(over, 1) - 1);
      message = { ...message, [field]: `${chars.slice(0, keep).join("")}…` };
    }
  }
  return { ...delivery, message };
}

/** Minutes since midnight of `HH:MM`, or null. */
function minutesOf(text: string | null): number | null {
  const match = text ? /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text) : null;
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

export interface QuietHours {
  quietFrom: string | null;
  quietTo: string | null;
  timeZone: string;
  quietHoldsCards: boolean;
}

/** True while `now` lies in the person's quiet hours (from–to in their zone, across midnight too). */
export function inQuietHours(settings: QuietHours, now: Date): boolean {
  const from = minutesOf(settings.quietFrom);
  const to = minutesOf(settings.quietTo);
  if (from === null || to === null || from === to) return false;
  const parts = new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: safeZone(settings.timeZone),
  }).formatToParts(now);
  const hour = Number(parts.find((p) => p.type === "hour")?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === "minute")?.value ?? 0);
  const at = hour * 60 + minute;
  return from < to ? at >= from && at < to : at >= from || at < to;
}

/** Whether quiet hours hold this push now: everything but cards, cards too when the person says so. */
export function heldByQuietHours(
  type: PushMessage["type"],
  settings: QuietHours,
  now: Date,
): boolean {
  if (type === "close") return false;
  if ((type === "card" || type === "reminder") && !settings.quietHoldsCards) return false;
  return inQuietHours(settings, now);
}

/** When the quiet hours that hold `now` end (to the minute), or null when `now` is not quiet. */
export function quietHoursEnd(settings: QuietHours, now: Date): Date | null {
  if (!inQuietHours(settings, now)) return null;
  const start = Math.floor(now.getTime() / 60_000) * 60_000;
  for (let minute = 1; minute <= 24 * 60; minute++) {
    const at = new Date(start + minute * 60_000);
    if (!inQuietHours(settings, at)) return at;
  }
  return null;
}
