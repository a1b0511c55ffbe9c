/**
 * How the count of cards waiting on the person is shown outside "Waiting for you": before the
 * tab's title, on the nav item (in words for a screen reader), and on the app's icon.
 */

/** "(3) Chats · Switchboard"; the page's own title when nothing waits. */
export function titleWithCount(title: string, count: number): string {
  return count > 0 ? `(${shownCount(count)}) ${title}` : title;
}

/** The number as a badge shows it: "3", and "99+" past 99 (a badge stays small). */
export function shownCount(count: number): string {
  return count > 99 ? "99+" : String(count);
}

/** The nav item as a screen reader names it: "Waiting for you, 3". */
export function waitingLabel(count: number): string {
  return count > 0 ? `Waiting for you, ${count}` : "Waiting for you";
}

/** "3 cards wait for you", "1 card waits for you", "No cards wait for you". */
export function waitingWords(count: number): string {
  if (count === 0) return "No cards wait for you";
  return count === 1 ? "1 card waits for you" : `${count} cards wait for you`;
}

/**
 * When to read the count again without being told: just after the first waiting card expires
 * (the timer that expires it may run a moment later, and the count already leaves it out).
 */
export function countRereadAt(nextExpiresAt: string | null): number | null {
  return nextExpiresAt === null ? null : Date.parse(nextExpiresAt) + 250;
}
