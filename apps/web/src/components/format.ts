/**
 * Times as a person reads them, always in the reader's own time zone and language: "Sat 29 Nov,
 * 10:00" (the year only when it is not this year), "in 23 h", "3 min ago". Timestamps from the
 * API are ISO strings in UTC; nothing here shows UTC.
 */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A timestamp as the reader's local date and time ("29 Nov 2026, 10:00"). */
export function formatTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

const sameYear = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});
const otherYear = new Intl.DateTimeFormat(undefined, {
  weekday: "short",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayKey = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "numeric",
  day: "numeric",
});

/** "Sat 29 Nov, 10:00" in the reader's zone; with the year when it is not this year. */
export function formatWhen(iso: string, now = new Date()): string {
  const date = new Date(iso);
  return (date.getFullYear() === now.getFullYear() ? sameYear : otherYear).format(date);
}

/** "Sat 29 Nov, 10:00–11:30", or both ends in full when they fall on different days. */
export function formatSpan(
  start: string,
  end: string | null | undefined,
  now = new Date(),
): string {
  if (!end) return formatWhen(start, now);
  const sameDay = dayKey.format(new Date(start)) === dayKey.format(new Date(end));
  return sameDay
    ? `${formatWhen(start, now)}–${timeOnly.format(new Date(end))}`
    : `${formatWhen(start, now)} – ${formatWhen(end, now)}`;
}

/** How far away a time is, roughly: "45 min", "23 h", "3 days". */
export function formatDistance(ms: number): string {
  const minutes = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

/** "in 23 h" for a time ahead, "3 min ago" for one past. */
export function formatRelative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  return ms >= 0 ? `in ${formatDistance(ms)}` : `${formatDistance(ms)} ago`;
}

const shortDay = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  timeZone: "UTC",
});
const longDay = new Intl.DateTimeFormat(undefined, {
  weekday: "long",
  month: "long",
  day: "numeric",
  timeZone: "UTC",
});

/** A UTC day key ("2026-11-29") as a chart label ("29 Nov"). */
export function formatDay(day: string): string {
  return shortDay.format(new Date(`${day}T00:00:00Z`));
}

/** A UTC day key as words ("Sunday, 29 November"). */
export function formatLongDay(day: string): string {
  return longDay.format(new Date(`${day}T00:00:00Z`));
}
