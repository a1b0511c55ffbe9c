import type { Executor } from "@switchboard/db";
import { notifyTopics, type Topic } from "./notifier";

/**
 * Owner control takes effect at once: whatever changes an agent's standing (pause, its owner's
 * suspension, a token revoked, a person blocking or removing it) notifies `control:<agentId>` in
 * the same transaction. The agent's open streams and parked long-polls, on any process, re-check
 * their standing when it commits instead of at the next ping or heartbeat.
 */
export function controlTopic(agentId: string): Topic {
  return `control:${agentId}`;
}

/** Queues the control wake-up of each agent inside the caller's transaction. */
export async function notifyAgentControl(tx: Executor, agentIds: Iterable<string>): Promise<void> {
  await notifyTopics(tx, [...agentIds].map(controlTopic));
}
