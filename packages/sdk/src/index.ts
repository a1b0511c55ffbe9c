/**
 * @switchboard/sdk — the TypeScript client for Switchboard agents: the Agent API (one typed
 * method per operation of the contract's registry), long-poll updates, the real-time stream
 * with streamed replies, webhook verification, and the Developer API's self chat.
 */
export type {
  AgentAction,
  AgentConversation,
  AgentEvent,
  AgentEventType,
  AgentMe,
  AgentMessage,
  AgentUpdateMeRequest,
  AgentUser,
  ApiError,
  ErrorCode,
  ErrorIssue,
  EventPayload,
  OperationId,
  ServerFrame,
} from "@switchboard/contract";
export {
  defaultWsUrl,
  Switchboard,
  SwitchboardDeveloper,
  type SwitchboardDeveloperOptions,
  type SwitchboardOptions,
} from "./client";
export { isSwitchboardError, SwitchboardError } from "./errors";
export { DEFAULT_BASE_URL, type HttpOptions } from "./http";
export type { Route } from "./route-table";
export {
  AgentStream,
  type ReplyTarget,
  ReplyWriter,
  type StreamListeners,
  type StreamOptions,
  type WebSocketConstructor,
  type WebSocketLike,
} from "./stream";
export type {
  AgentOperationId,
  AnyErrorCode,
  CallArgs,
  CallOptions,
  ClientErrorCode,
  DevOperationId,
  OperationErrorCode,
  OperationInput,
  OperationMethod,
  OperationOutput,
  SurfaceOperationId,
} from "./types";
export { Updates, type UpdatesOptions } from "./updates";
export {
  SIGNATURE_HEADER,
  type VerifyWebhookOptions,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./webhooks";
