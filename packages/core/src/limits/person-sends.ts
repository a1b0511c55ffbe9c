import type { Tx } from "@switchboard/db";
import type { CoreDeps } from "../deps";
import { enforceRateLimit } from "./rate-limit";

/**
 * Charges a person's email (to anyone, in a 1:1 or group thread) to the same per-minute limits
 * an agent's sends have, inside the send's transaction (a refused send uses up nothing):
 * `LIMIT_MESSAGES_PER_MIN` across recipients (429 `rate_limited`) and
 * `LIMIT_PER_RECIPIENT_PER_MIN` toward each recipient (429 `conversation_rate_limited`), so no
 * person can flood another's inbox. The counters are the shared Postgres ones, so the limits
 * hold across every web process.
 */
export async function chargePersonSend(
  tx: Tx,
  deps: CoreDeps,
  send: { senderId: string; recipientIds: string[] },
): Promise<void> {
  const now = deps.clock.now();
  const { LIMIT_MESSAGES_PER_MIN, LIMIT_PER_RECIPIENT_PER_MIN } = deps.config;
  await enforceRateLimit(
    tx,
    now,
    `person-sends:${send.senderId}`,
    LIMIT_MESSAGES_PER_MIN,
    60,
    "emails",
  );
  for (const recipientId of [...new Set(send.recipientIds)].sort())
    await enforceRateLimit(
      tx,
      now,
      `person-recipient:${send.senderId}:${recipientId}`,
      LIMIT_PER_RECIPIENT_PER_MIN,
      60,
      "emails to one person",
      "conversation_rate_limited",
    );
}
