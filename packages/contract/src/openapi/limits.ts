/** The numbers of the Limits table; the service passes its configured values. */
export interface ServiceLimits {
  requestsPerMin: number;
  messagesPerMin: number;
  perRecipientPerMin: number;
  dailyMessages: number;
  dailyProposals: number;
  dailyRefused: number;
  pendingProposals: number;
  longPollMaxWaitS: number;
  longPollMaxParked: number;
  webhookTimeoutS: number;
  webhookRetryScheduleS: number[];
  webhookDisableAfter: number;
  streamMaxConnections: number;
  streamFramesPerMin: number;
  streamDeltasPerSec: number;
  streamMaxOpenReplies: number;
  streamMaxReplyChars: number;
  streamReplyIdleS: number;
  devMessagesPerMin: number;
}

/** The spec's values. */
export const specLimits: ServiceLimits = {
  requestsPerMin: 300,
  messagesPerMin: 60,
  perRecipientPerMin: 20,
  dailyMessages: 2000,
  dailyProposals: 300,
  dailyRefused: 100,
  pendingProposals: 10,
  longPollMaxWaitS: 25,
  longPollMaxParked: 5,
  webhookTimeoutS: 10,
  webhookRetryScheduleS: [60, 300, 900, 3600, 10800, 21600, 43200],
  webhookDisableAfter: 25,
  streamMaxConnections: 3,
  streamFramesPerMin: 120,
  streamDeltasPerSec: 20,
  streamMaxOpenReplies: 3,
  streamMaxReplyChars: 10_000,
  streamReplyIdleS: 60,
  devMessagesPerMin: 30,
};
