export { VoiceAgentPlatform } from "./client.js";
export { APIClient, type ClientOptions, type RequestOptions, VERSION } from "./core.js";
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  ConflictError,
  type ErrorBody,
  type ErrorCode,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlatformError,
  RateLimitError,
  ValidationError,
  type ValidationIssue,
  WebhookVerificationError,
} from "./errors.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { OPERATIONS, type OperationId } from "./operations.js";
export { Page, type PageBody, PagePromise } from "./pagination.js";
export type { RunAndWaitOptions, RunAndWaitResult } from "./resources/agent-tests.js";
export type { KnowledgeFileParams } from "./resources/knowledge-bases.js";
export type { SttCreateParams, TranscriptionCreateParams, Uploadable } from "./resources/models.js";
export {
  type ConstructToolRequestOptions,
  constructToolRequest,
  TOOL_RESPONSE_LIMIT,
  type ToolRequest,
  type ToolRequestCall,
  type ToolRequestChat,
  toolResponse,
  toolResponseBody,
} from "./tools.js";
export type * from "./types.js";
export {
  type CallEvent,
  type CallEventType,
  type CampaignEvent,
  type CampaignEventType,
  type ConstructEventOptions,
  constructEvent,
  type MessagingEvent,
  type MessagingEventType,
  type RawBody,
  type SignatureInput,
  signPayload,
  type TestRunEvent,
  type TestRunEventType,
  type WebhookCall,
  type WebhookChat,
  type WebhookEvent,
  type WebhookEventType,
  type WidgetEvent,
  type WidgetEventType,
} from "./webhooks.js";
