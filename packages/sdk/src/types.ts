// Request and response types of each operation, read from the generated document types (one
// source of truth: the route schemas), plus the names a user imports.
import type { components, operations } from "./generated/openapi.js";
import type { OperationId } from "./operations.js";

type Op<O extends OperationId> = operations[O];

/** The JSON request body of an operation. */
export type BodyOf<O extends OperationId> =
  Op<O> extends { requestBody: { content: { "application/json": infer B } } }
    ? B
    : Op<O> extends { requestBody?: { content: { "application/json": infer B } } }
      ? B
      : never;

/** The query parameters of an operation. */
export type QueryOf<O extends OperationId> = NonNullable<Op<O>["parameters"]["query"]>;

type Success<R> = R extends { 200: infer S } ? S : R extends { 201: infer S } ? S : never;

/** The JSON body of an operation's success response. */
export type ResponseOf<O extends OperationId> =
  Success<Op<O>["responses"]> extends { content: { "application/json": infer B } } ? B : never;

export type Schemas = components["schemas"];

export type Identity = Schemas["Identity"];
export type Agent = Schemas["Agent"];
export type AgentCreateParams = Schemas["CreateAgent"];
export type AgentUpdateParams = Schemas["UpdateAgent"];
export type AgentListParams = QueryOf<"listAgents">;
export type AgentConfig = Schemas["AgentConfig"];
export type AgentVersion = Schemas["AgentVersion"];
export type AgentVersionSummary = Schemas["AgentVersionSummary"];
export type AgentVersionDiff = Schemas["AgentVersionDiff"];
export type AgentVersionListParams = QueryOf<"listAgentVersions">;
export type AgentTest = Schemas["AgentTest"];
export type AgentTestCreateParams = Schemas["CreateAgentTest"];
export type AgentTestUpdateParams = Schemas["UpdateAgentTest"];
export type AgentTestListParams = QueryOf<"listAgentTests">;
export type AgentTestRun = Schemas["AgentTestRun"];
export type AgentTestRunListParams = QueryOf<"listAgentTestRuns">;
export type AgentTestRunParams = Schemas["RunAgentTests"];
export type StartedAgentTestRuns = Schemas["StartedAgentTestRuns"];
export type AgentReplayParams = Schemas["StartAgentReplay"];
export type Call = Schemas["Call"];
export type CallCreateParams = Schemas["CreateCall"];
export type CallListParams = QueryOf<"listCalls">;
export type WebCall = Schemas["WebCall"];
export type WebCallCreateParams = Schemas["CreateWebCall"];
export type PhoneNumber = Schemas["PhoneNumber"];
export type PhoneNumberCreateParams = Schemas["CreatePhoneNumber"];
export type PhoneNumberUpdateParams = Schemas["UpdatePhoneNumber"];
export type PhoneNumberListParams = QueryOf<"listPhoneNumbers">;
export type Concurrency = Schemas["Concurrency"];
export type Campaign = Schemas["Campaign"];
export type CampaignCreateParams = Schemas["CreateCampaign"];
/** A campaign without its recipients: the multipart form's `campaign` field (createFromCsv). */
export type CampaignCreateFields = Omit<Schemas["CreateCampaign"], "recipients">;
export type CampaignUpdateParams = Schemas["UpdateCampaign"];
export type CampaignListParams = QueryOf<"listCampaigns">;
export type CampaignRecipient = Schemas["CampaignRecipient"];
export type CampaignRecipientListParams = QueryOf<"listCampaignRecipients">;
export type Voice = Schemas["Voice"];
export type VoiceCreateParams = Schemas["CreateVoice"];
export type VoiceUpdateParams = Schemas["UpdateVoice"];
export type VoiceListParams = QueryOf<"listVoices">;
export type KnowledgeBase = Schemas["KnowledgeBase"];
export type KnowledgeBaseCreateParams = Schemas["CreateKnowledgeBase"];
export type KnowledgeBaseUpdateParams = Schemas["UpdateKnowledgeBase"];
export type KnowledgeBaseListParams = QueryOf<"listKnowledgeBases">;
export type KnowledgeDocument = Schemas["KnowledgeDocument"];
export type KnowledgeDocumentListParams = QueryOf<"listKnowledgeDocuments">;
export type KnowledgeDocumentJson = Schemas["AddKnowledgeDocument"];
export type KnowledgeQueryParams = Schemas["QueryKnowledgeBase"];
export type KnowledgeQueryResult = Schemas["KnowledgeQueryResult"];
export type Chat = Schemas["Chat"];
export type ChatSummary = Schemas["ChatSummary"];
export type ChatListParams = QueryOf<"listChats">;
export type Widget = Schemas["Widget"];
export type WidgetCreateParams = Schemas["CreateWidget"];
export type WidgetUpdateParams = Schemas["UpdateWidget"];
export type WidgetListParams = QueryOf<"listWidgets">;
export type Channel = Schemas["Channel"];
export type ChannelCreateParams = Schemas["CreateChannel"];
export type ChannelUpdateParams = Schemas["UpdateChannel"];
export type ChannelListParams = QueryOf<"listChannels">;
export type ChannelCheck = Schemas["ChannelCheck"];
export type ChatCompletion = Schemas["ChatCompletion"];
export type ChatCreateParams = Schemas["ChatRequest"];
export type TtsCreateParams = Schemas["TtsRequest"];
export type SpeechCreateParams = BodyOf<"audioSpeech">;
export type Transcription = Schemas["Transcription"];
export type Usage = Schemas["Usage"];
export type UsageParams = QueryOf<"usage">;
export type UsageEvent = Schemas["UsageEvent"];
export type UsageByAgent = Schemas["UsageByAgent"];
export type AgentUsage = Schemas["AgentUsage"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
/** The create and rotate responses: the endpoint with its full signing secret (shown once). */
export type SavedWebhookEndpoint = Schemas["SavedWebhookEndpoint"];
export type WebhookEndpointCreateParams = Schemas["CreateWebhookEndpoint"];
export type WebhookEndpointUpdateParams = Schemas["UpdateWebhookEndpoint"];
export type WebhookEndpointListParams = QueryOf<"listWebhookEndpoints">;
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type WebhookDeliveryListParams = QueryOf<"listWebhookDeliveries">;
export type WebhookEndpointSendTestParams = BodyOf<"sendTestWebhook">;
export type TestReceiverCaptures = Schemas["TestReceiverCaptures"];
