/**
 * Core's public face: the operations adapters call (REST routes, tRPC procedures, stream frames,
 * jobs, CLI commands), and the few setup pieces they need. Transaction-level helpers
 * (`insertMessage`, `appendEvents`, `chargeSend`, `lockStanding`, …) stay inside core; wire
 * shapes come from `@switchboard/contract`; tests reach internals through `./testing`.
 */

// Actions (proposals and their decisions)
export { type Decision, decideAction, expireAction } from "./actions/decide-action";
export {
  changedFields,
  findRecordCards,
  listAgentDecisions,
  listPersonDecisions,
  MAX_DECISION_PAGE,
  toActionDecision,
} from "./actions/decisions";
export { getAgentAction, listAgentActions, setAutoExecute } from "./actions/list-actions";
export {
  findProposal,
  listProposalPage,
  type Proposal,
  type ProposalCursor,
  waitForDecision,
} from "./actions/proposal-tasks";
export { proposeAction } from "./actions/propose-action";
export {
  countWaitingCards,
  listWaitingCards,
  MAX_WAITING_CARDS,
  type WaitingCard,
  type WaitingCount,
} from "./actions/waiting-cards";
// Calls
export { endCall } from "./calls/end-call";
export { listPersonCalls } from "./calls/person-calls";
// Setup
export { type Clock, ManualClock, systemClock } from "./clock";
export { type Config, ConfigError, ConfigSchema, loadConfig } from "./config";
// Consent
export { checkAgentAccess } from "./consent/access";
export { blockAgent, setInitiation, unblockAgent } from "./consent/agent-settings";
export {
  addContact,
  addUserContact,
  getConsentCard,
  removeContact,
  setGrant,
} from "./contacts/contacts";
export { createDeps } from "./create-deps";
export type { CoreDeps, SendAdmission } from "./deps";
// Email
export { getAgentEmailThread } from "./email/get-agent-email-thread";
export { listAgentEmails } from "./email/list-agent-emails";
export {
  getPersonEmailThread,
  listPersonEmailThreads,
  markEmailThreadReadByPerson,
  PERSON_INBOX_PAGE,
  PERSON_THREAD_PAGE,
} from "./email/person-inbox";
export { replyAgentEmail } from "./email/reply-agent-email";
export { sendAgentEmail } from "./email/send-agent-email";
export { sendPersonEmail } from "./email/send-person-email";
export {
  CoreError,
  type CoreErrorDetails,
  KeyUnavailableError,
  notFound,
  parseInput,
} from "./errors";
// Events
export { controlTopic } from "./events/agent-control";
export { latestSeq, readEvents } from "./events/read-events";
// Feed
export { deleteAgentPost, getAgentPost, listAgentPosts } from "./feed/agent-posts";
export { createPost } from "./feed/create-post";
export {
  commentOnPost,
  deletePostComment,
  listPersonFeed,
  listPostComments,
  setPostLike,
  setPostRepost,
} from "./feed/person-feed";
export { checkHealth, checkReadiness, watchDatabase } from "./health";
export {
  claimIdempotencyKey,
  IdempotentWrite,
  parseIdempotencyKey,
  requestFingerprint,
  type StoredAnswer,
} from "./idempotency/idempotency-keys";
export { type AgentOverview, listAgentOverviews } from "./identity/agent-overviews";
// Identity
export {
  type AdmissionInSend,
  type AdmissionRead,
  type AdmittedAgent,
  type AgentPrincipal,
  admissionInSend,
  assertAgentActive,
  authenticateAgent,
  authorizeAgentRequest,
  type KnownAgentToken,
  knownAgentToken,
  listAgentTokens,
  mintAgentToken,
  revokeAgentToken,
} from "./identity/agent-tokens";
export {
  type CreateAgentInput,
  createAgent,
  findAgent,
  getAgentMe,
  getOwnedAgent,
  listOwnedAgents,
  ownsAnyAgent,
  pauseAgent,
  resumeAgent,
  updateAgentMe,
} from "./identity/agents";
export {
  assertSessionStanding,
  consoleSessionStanding,
  endConsoleSession,
  newConsoleSessionId,
  type SessionStanding,
} from "./identity/console-sessions";
export { type Credential, parseAuthorization } from "./identity/credentials";
export {
  authenticateDeveloper,
  createDeveloperKey,
  type DeveloperPrincipal,
  getDevMe,
  listDeveloperKeys,
  revokeDeveloperKey,
} from "./identity/developer-keys";
export {
  assertSessionUserActive,
  type CreateUserInput,
  createUser,
  findUser,
  getUser,
  setUserSuspended,
  signUpPerson,
  verifyCredentials,
} from "./identity/users";
export { type InstanceStatus, instanceStatus } from "./instance-status";
// Jobs and limits (the worker's runner and the request pipeline)
export { type JobName, type JobPayload, jobNames, jobPayloads } from "./jobs/enqueue-job";
export { type JobQueueDepth, readJobQueue } from "./jobs/job-queue";
export { forgetWorkers, heartbeatWorkers, unlockStaleJobs } from "./jobs/stale-workers";
export { JsonText } from "./json-text";
export { type AgentDay, getAgentHistory } from "./limits/agent-history";
export { getAgentUsage } from "./limits/charge-send";
export { enforceConsoleRequestLimit } from "./limits/console-requests";
export { acquireLease, type Lease } from "./limits/leases";
export type { RateState } from "./limits/rate-limit";
export { captureLogs, log, logRequest, withLogContext } from "./log";
export { cleanupExpired } from "./maintenance/cleanup";
// Messaging
export { addReaction } from "./messaging/add-reaction";
export { AVATAR_MAX_BYTES, getChatAgentAvatar } from "./messaging/chat-agent-avatar";
export { type ChatAgentProfile, describeChatAgent } from "./messaging/describe-chat-agent";
export { getMessageAudio, type MessageAudio } from "./messaging/get-message-audio";
export {
  admitConsoleMediaRead,
  CONSOLE_MEDIA_READS_PER_MIN,
  getPersonMessageMedia,
  openPersonMessageMedia,
} from "./messaging/get-person-message-media";
export { listAgentConversations } from "./messaging/list-agent-conversations";
export {
  type HistoryPage,
  historyAdmission,
  historyAnswer,
  historyKey,
  listAgentMessages,
  listAgentMessagesJson,
} from "./messaging/list-agent-messages";
export {
  CHAT_LIST_PAGE_SIZE,
  listPersonChatRows,
  type PersonChatRow,
  type PersonChatRowPage,
} from "./messaging/list-person-chat-rows";
export { listPersonMessages } from "./messaging/list-person-messages";
export { markConversationRead } from "./messaging/mark-conversation-read";
export { markReadByPerson } from "./messaging/mark-read-by-person";
export { reactAsPerson, unreactAsPerson } from "./messaging/react-as-person";
export { removeReaction } from "./messaging/remove-reaction";
export { listSelfMessages, postSelfMessage } from "./messaging/self-chat";
export { sendAgentMessage } from "./messaging/send-agent-message";
export { sendPersonMessage } from "./messaging/send-person-message";
export { setAgentTyping } from "./messaging/set-agent-typing";
export { setMessageTranscript } from "./messaging/set-message-transcript";
export { setPersonTyping } from "./messaging/set-person-typing";
export {
  abortStreamedReply,
  appendReplyDelta,
  checkOpenReply,
  endAbandonedReplies,
  endStreamedReply,
  type OpenReply,
  readOpenReplies,
  startStreamedReply,
} from "./messaging/streamed-replies";
export { TRANSCRIBE_ATTEMPTS, transcribeVoiceNote } from "./messaging/transcribe-voice-note";
export {
  metrics,
  metricsAllowed,
  metricsRefusal,
  metricsText,
  registerDatabaseMetrics,
} from "./metrics";
export { forwardedClient, parseProxyRange, proxiedClient } from "./net/trusted-proxies";
export {
  defaultNotificationSettings,
  NotificationSettings,
  readNotificationSettings,
  updateNotificationSettings,
} from "./notifications/notification-settings";
export {
  addPushSubscription,
  deviceLabel,
  listPushDevices,
  MAX_PUSH_DEVICES,
  type PushDevice,
  PushSubscriptionInput,
  removePushSubscription,
} from "./notifications/push-subscriptions";
export * from "./notifications/push-words";
export {
  isLooking,
  MESSAGE_PUSH_WINDOW_MS,
  notifyMessage,
  notifyOwner,
  notifyPerson,
  type OwnerAlert,
  PRESENCE_LEASE_MS,
  type PushOutcome,
  reportPresence,
  retryAfterSeconds,
  retryPush,
  sendPush,
} from "./notifications/send-push";
// OAuth 2.1 for the MCP endpoint
export { type OAuthClient, registerClient, resolveClient } from "./oauth/clients";
export {
  type AuthorizationCheck,
  type AuthorizationRequest,
  authorizeOAuthRequest,
  checkAuthorizationRequest,
  decideAuthorization,
  exchangeToken,
  revokeOAuthToken,
  type TokenAnswer,
} from "./oauth/grants";
export {
  MCP_PATH,
  mcpResource,
  OAUTH_SCOPE,
  OAuthError,
  protectedResourceMetadataUrl,
} from "./oauth/rules";
// Objects (serving stored media by Range)
export { type ByteRange, parseByteRange } from "./objects/byte-range";
export type { MediaKind } from "./objects/prepare-media";
export { sniffAudio, sniffImage, sniffVideo } from "./objects/sniff-media";
// Records
export { listRecordsForAgent } from "./records/agent-records";
export { type ActionTarget, describeActionTargets } from "./records/describe-action-target";
export { fireRecordDue, type RecordDueJob } from "./records/fire-record-due";
export {
  archiveOwnRecord,
  completeOwnRecord,
  createRecord,
  deleteOwnRecord,
  getOwnRecord,
  listOwnRecords,
  updateOwnRecord,
} from "./records/person-records";
export { rootCause } from "./root-cause";
export { AdmitFirst } from "./sending/send-sequence";
export { authSecret, retireKeysKeptInDatabase } from "./settings";
export { beginDrain, drainSignal, isDraining } from "./shutdown";
export { pollEvents } from "./updates/poll-events";
// Voice
export { type SpeechSetup, speechSetup } from "./voice/speech-engine";
export { transcriptionSetup } from "./voice/speech-to-text";
// Webhooks
export {
  type DeliveryOutcome,
  deliverWebhook,
  deliveryRequest,
  drainWebhook,
} from "./webhooks/deliver-webhook";
export {
  type DeliveryCursor,
  type DeliveryFilter,
  type DeliveryLogPage,
  listWebhookDeliveries,
  readDeliveryLog,
} from "./webhooks/delivery-log";
export {
  getWebhookDeliveryDetail,
  type WebhookDeliveryDetail,
} from "./webhooks/describe-delivery";
export { explainDeliveryError } from "./webhooks/explain-delivery-error";
export {
  listWebhookAlerts,
  PLATFORM_USER,
  type WebhookAlert,
} from "./webhooks/owner-alerts";
export { redeliverWebhookEvent, retryWebhookDelivery } from "./webhooks/retry-delivery";
export {
  sendWebhookTestEvent,
  TEST_EVENT_TYPE,
  type WebhookTestResult,
} from "./webhooks/send-test-event";
export {
  agentSigningSecrets,
  countWaitingDeliveries,
  deleteWebhook,
  getWebhook,
  putWebhook,
  resumeWebhook,
  rotateWebhookSecret,
} from "./webhooks/webhook-config";
export { WebhookDrains, type WebhookDrainsOptions } from "./webhooks/webhook-drains";
