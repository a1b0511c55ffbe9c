import { localDayKey } from "~/components/format";

/** What grouping needs of a message: who sent it, when, and whether it is a card. */
export interface RunMessage {
  senderId: string;
  createdAt: string;
  action?: unknown;
}

/** Chat apps group a sender's messages that follow each other within a few minutes. */
export const GROUP_WITHIN_MS = 5 * 60_000;

/**
 * Whether `message` goes on the run of `before`: the same sender, the same day, within a few
 * minutes, and neither is a card (a card stands on its own).
 */
export function continues(before: RunMessage | undefined, message: RunMessage): boolean {
  return (
    before !== undefined &&
    !before.action &&
    !message.action &&
    before.senderId === message.senderId &&
    localDayKey(before.createdAt) === localDayKey(message.createdAt) &&
    Date.parse(message.createdAt) - Date.parse(before.createdAt) < GROUP_WITHIN_MS
  );
}

/** Where each message stands in its run: after another of it, and whether it ends it. */
export interface RunPlace {
  continued: boolean;
  last: boolean;
}

/**
 * Each message's place in the runs, in list order (oldest first). The last of a run shows the
 * time; so does the newest message, whose run may still grow (it is the last until then).
 */
export function runPlaces(messages: readonly RunMessage[]): RunPlace[] {
  return messages.map((message, i) => {
    const next = messages[i + 1];
    return {
      continued: continues(messages[i - 1], message),
      last: next === undefined || !continues(message, next),
    };
  });
}
