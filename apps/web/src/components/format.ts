const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A timestamp from the API as the reader's local date and time. */
export function formatTime(iso: string): string {
  return dateTime.format(new Date(iso));
}
