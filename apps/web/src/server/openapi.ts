import "server-only";
import { buildOpenApi, type ServiceLimits } from "@switchboard/contract";
import type { Config } from "@switchboard/core";
import { getDeps } from "./deps";
import { json } from "./responses";

/** The Limits table as this instance is configured. */
function limitsOf(config: Config): ServiceLimits {
  return {
    requestsPerMin: config.LIMIT_REQUESTS_PER_MIN,
    messagesPerMin: config.LIMIT_MESSAGES_PER_MIN,
    perRecipientPerMin: config.LIMIT_PER_RECIPIENT_PER_MIN,
    dailyMessages: config.LIMIT_DAILY_MESSAGES,
    dailyProposals: config.LIMIT_DAILY_PROPOSALS,
    dailyRefused: config.LIMIT_DAILY_REFUSED,
    pendingProposals: config.LIMIT_PENDING_PROPOSALS,
    longPollMaxWaitS: config.LONGPOLL_MAX_WAIT_S,
    longPollMaxParked: config.LONGPOLL_MAX_PARKED,
    webhookTimeoutS: config.WEBHOOK_TIMEOUT_MS / 1000,
    webhookRetryScheduleS: config.WEBHOOK_RETRY_SCHEDULE_S,
    webhookDisableAfter: config.WEBHOOK_DISABLE_AFTER,
    streamMaxConnections: config.STREAM_MAX_CONNECTIONS,
    streamFramesPerMin: config.STREAM_FRAMES_PER_MIN,
    streamDeltasPerSec: config.STREAM_DELTAS_PER_SEC,
    streamMaxOpenReplies: config.STREAM_MAX_OPEN_REPLIES,
    streamMaxReplyChars: config.STREAM_MAX_REPLY_CHARS,
    streamReplyIdleS: config.STREAM_REPLY_IDLE_S,
    devMessagesPerMin: config.LIMIT_DEV_MESSAGES_PER_MIN,
  };
}

const documents = new Map<"agent" | "dev", Record<string, unknown>>();

/**
 * `GET /api/agent/v1/openapi.json` (the Agent API and its webhooks) and `GET /api/v1/openapi.json`
 * (the Developer API): public, each built once.
 */
export function openApiResponse(api: "agent" | "dev"): () => Promise<Response> {
  return async () => {
    let document = documents.get(api);
    if (!document) {
      document = buildOpenApi({ api, limits: limitsOf(getDeps().config) });
      documents.set(api, document);
    }
    return json(document, 200, { "Cache-Control": "public, max-age=300" });
  };
}
