/**
 * Times as a person reads them, always in the reader's own time zone and language: "Sat 29 Nov,
 * 10:00" (the year only when it is not this year), "in 23 h", "3 min ago". Timestamps from the
 * API are ISO strings in UTC.
 *
 * Until a page is hydrated, though, they are written in UTC and British English: the server
 * renders pages with their data but knows neither the reader's zone nor their language, and the
 * browser's first render must write what the server wrote. `useReaderTimes` (time.tsx) switches
 * to the reader's own as soon as the page is hydrated, and renders the times again.
 */

let forReader = false;

/** Writes times (and numbers) in the reader's zone and language from now on, or in UTC and en-GB. */
export function writeForReader(on: boolean): void {
  forReader = on;
}

/**
 * `make()`'s value, made on the first call. Making an `Intl` formatter costs milliseconds in a
 * browser (its locale data loads): a page that made every format as this module loaded waited
 * over 100 ms for formats it mostly never uses.
 */
function lazily<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

/** A date format in the reader's terms, or in UTC and en-GB while they are not known. */
function dateFormat(options: Intl.DateTimeFormatOptions): { format(date: Date): string } {
  const reader = lazily(() => new Intl.DateTimeFormat(undefined, options));
  const neutral = lazily(() => new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", ...options }));
  return { format: (date) => (forReader ? reader() : neutral()).format(date) };
}

/** A date's year, month (0–11) and day where it is read (in UTC while the reader's zone is unknown). */
function calendarDay(date: Date): [number, number, number] {
  return forReader
    ? [date.getFullYear(), date.getMonth(), date.getDate()]
    : [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
}

const sameCalendarYear = (a: Date, b: Date) => calendarDay(a)[0] === calendarDay(b)[0];

const readerNumber = lazily(() => new Intl.NumberFormat());
const neutralNumber = lazily(() => new Intl.NumberFormat("en-GB"));

/** A number in the reader's language ("1,234.5" or "1.234,5"). */
export function formatNumber(value: number): string {
  return (forReader ? readerNumber() : neutralNumber()).format(value);
}

const dateTime = dateFormat({ dateStyle: "medium", timeStyle: "short" });

/** A timestamp as the reader's local date and time ("29 Nov 2026, 10:00"). */
export function formatTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

const sameYear = dateFormat({
  weekday: "short",
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
});
const otherYear = dateFormat({
  weekday: "short",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});
const timeOnly = dateFormat({ hour: "2-digit", minute: "2-digit" });

/** The time of day only ("10:00"). */
export function formatClock(iso: string): string {
  return timeOnly.format(new Date(iso));
}

const dayKey = dateFormat({
  year: "numeric",
  month: "numeric",
  day: "numeric",
});

/** "Sat 29 Nov, 10:00" in the reader's zone; with the year when it is not this year. */
export function formatWhen(iso: string, now = new Date()): string {
  const date = new Date(iso);
  return (sameCalendarYear(date, now) ? sameYear : otherYear).format(date);
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

const shortDay = dateFormat({
  month: "short",
  day: "numeric",
  timeZone: "UTC",
});
const longDay = dateFormat({
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

const weekdayTime = dateFormat({
  weekday: "short",
  hour: "2-digit",
  minute: "2-digit",
});
const dayMonth = dateFormat({ day: "numeric", month: "short" });
const dayMonthYear = dateFormat({
  day: "numeric",
  month: "short",
  year: "numeric",
});
const weekdayOnly = dateFormat({ weekday: "long" });
const weekdayShort = dateFormat({ weekday: "short" });
const fullDateTime = dateFormat({ dateStyle: "full", timeStyle: "short" });

/** Whole local calendar days from `date` to `now` (0 today, 1 yesterday). */
export function daysAgo(date: Date, now: Date): number {
  const midnight = (d: Date) => Date.UTC(...calendarDay(d));
  return Math.round((midnight(now) - midnight(date)) / 86_400_000);
}

/** The full local date and time, for a title: "Thursday 26 November 2026 at 19:38". */
export function formatFullTime(iso: string): string {
  return fullDateTime.format(new Date(iso));
}

/**
 * A message's time as chat apps show it: "now", "5 min", "18:02" (today), "Yesterday 18:02",
 * "Mon 18:02" (this week), "29 Nov, 18:02", or with the year when it is not this year.
 */
export function formatChatTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  const ms = now.getTime() - date.getTime();
  if (ms >= -60_000 && ms < 60_000) return "now";
  if (ms > 0 && ms < 60 * 60_000) return `${Math.floor(ms / 60_000)} min`;
  const days = daysAgo(date, now);
  const time = timeOnly.format(date);
  if (days === 0) return time;
  if (days === 1) return `Yesterday ${time}`;
  if (days > 1 && days < 7) return weekdayTime.format(date);
  return formatWhen(iso, now);
}

/** A chat list's time of the last message: "now", "5 min", "18:02", "Yesterday", "Mon", "29 Nov". */
export function formatListTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  const days = daysAgo(date, now);
  if (days <= 0) return formatChatTime(iso, now);
  if (days === 1) return "Yesterday";
  if (days < 7) return weekdayShort.format(date);
  return (sameCalendarYear(date, now) ? dayMonth : dayMonthYear).format(date);
}

/** A day separator in a thread: "Today", "Yesterday", "Monday", "29 Nov" or "29 Nov 2025". */
export function formatDayLabel(iso: string, now = new Date()): string {
  const date = new Date(iso);
  const days = daysAgo(date, now);
  if (days === 0) return "Today";
  if (days === 1) return "Yesterday";
  if (days > 1 && days < 7) return weekdayOnly.format(date);
  return (sameCalendarYear(date, now) ? dayMonth : dayMonthYear).format(date);
}

/** The local calendar day of a time, as a key ("2026-11-26"). */
export function localDayKey(iso: string): string {
  const [year, month, day] = calendarDay(new Date(iso));
  return `${year}-${month + 1}-${day}`;
}
