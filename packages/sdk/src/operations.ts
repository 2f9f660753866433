// Every operation the SDK calls, by the OpenAPI document's operationId: its method, its path (a
// key of the generated `paths`, so a path the document lacks does not compile) and the SDK
// method that calls it. test/unit/sdk/operations.test.ts compares this table with the document:
// every API-key operation is here, with the same method and path, and nothing else is.
import type { paths } from "./generated/openapi.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

export interface OperationSpec {
  method: HttpMethod;
  path: keyof paths;
  /** The SDK method that calls it, from the client: `agents.create`. */
  sdk: string;
}

export const OPERATIONS = {
  getMe: { method: "GET", path: "/v1/me", sdk: "me.retrieve" },

  listAgents: { method: "GET", path: "/v1/agents", sdk: "agents.list" },
  createAgent: { method: "POST", path: "/v1/agents", sdk: "agents.create" },
  getAgent: { method: "GET", path: "/v1/agents/{id}", sdk: "agents.retrieve" },
  updateAgent: { method: "PATCH", path: "/v1/agents/{id}", sdk: "agents.update" },
  deleteAgent: { method: "DELETE", path: "/v1/agents/{id}", sdk: "agents.del" },
  rotateAgentToolSecret: { method: "POST", path: "/v1/agents/{id}/rotate-tool-secret", sdk: "agents.rotateToolSecret" },
  listAgentVersions: { method: "GET", path: "/v1/agents/{id}/versions", sdk: "agents.listVersions" },
  getAgentVersion: { method: "GET", path: "/v1/agents/{id}/versions/{version}", sdk: "agents.retrieveVersion" },
  diffAgentVersions: { method: "GET", path: "/v1/agents/{id}/versions/{from}/diff/{to}", sdk: "agents.diffVersions" },
  publishAgentVersion: { method: "POST", path: "/v1/agents/{id}/publish", sdk: "agents.publish" },
  rollbackAgent: { method: "POST", path: "/v1/agents/{id}/rollback", sdk: "agents.rollback" },

  listAgentTests: { method: "GET", path: "/v1/agents/{id}/tests", sdk: "agentTests.list" },
  createAgentTest: { method: "POST", path: "/v1/agents/{id}/tests", sdk: "agentTests.create" },
  runAgentTests: { method: "POST", path: "/v1/agents/{id}/tests/runs", sdk: "agentTests.runAll" },
  getAgentTest: { method: "GET", path: "/v1/agents/{id}/tests/{testId}", sdk: "agentTests.retrieve" },
  updateAgentTest: { method: "PATCH", path: "/v1/agents/{id}/tests/{testId}", sdk: "agentTests.update" },
  deleteAgentTest: { method: "DELETE", path: "/v1/agents/{id}/tests/{testId}", sdk: "agentTests.del" },
  runAgentTest: { method: "POST", path: "/v1/agents/{id}/tests/{testId}/runs", sdk: "agentTests.run" },
  listAgentTestRuns: { method: "GET", path: "/v1/agents/{id}/test-runs", sdk: "agentTests.runs.list" },
  getAgentTestRun: { method: "GET", path: "/v1/agents/{id}/test-runs/{runId}", sdk: "agentTests.runs.retrieve" },
  replayAgentConversation: { method: "POST", path: "/v1/agents/{id}/replays", sdk: "agentTests.replay" },

  createCall: { method: "POST", path: "/v1/agents/{id}/calls", sdk: "calls.create" },
  createWebCall: { method: "POST", path: "/v1/agents/{id}/web-call", sdk: "calls.createWebCall" },
  listCalls: { method: "GET", path: "/v1/calls", sdk: "calls.list" },
  getCall: { method: "GET", path: "/v1/calls/{id}", sdk: "calls.retrieve" },
  getCallRecording: { method: "GET", path: "/v1/calls/{id}/recording", sdk: "calls.recording" },
  endCall: { method: "POST", path: "/v1/calls/{id}/end", sdk: "calls.end" },
  getConcurrency: { method: "GET", path: "/v1/concurrency", sdk: "concurrency.retrieve" },

  listPhoneNumbers: { method: "GET", path: "/v1/phone-numbers", sdk: "phoneNumbers.list" },
  createPhoneNumber: { method: "POST", path: "/v1/phone-numbers", sdk: "phoneNumbers.create" },
  updatePhoneNumber: { method: "PATCH", path: "/v1/phone-numbers/{id}", sdk: "phoneNumbers.update" },
  deletePhoneNumber: { method: "DELETE", path: "/v1/phone-numbers/{id}", sdk: "phoneNumbers.del" },

  listCampaigns: { method: "GET", path: "/v1/campaigns", sdk: "campaigns.list" },
  createCampaign: { method: "POST", path: "/v1/campaigns", sdk: "campaigns.create" },
  getCampaign: { method: "GET", path: "/v1/campaigns/{id}", sdk: "campaigns.retrieve" },
  updateCampaign: { method: "PATCH", path: "/v1/campaigns/{id}", sdk: "campaigns.update" },
  deleteCampaign: { method: "DELETE", path: "/v1/campaigns/{id}", sdk: "campaigns.del" },
  listCampaignRecipients: { method: "GET", path: "/v1/campaigns/{id}/recipients", sdk: "campaigns.recipients.list" },
  startCampaign: { method: "POST", path: "/v1/campaigns/{id}/start", sdk: "campaigns.start" },
  pauseCampaign: { method: "POST", path: "/v1/campaigns/{id}/pause", sdk: "campaigns.pause" },
  resumeCampaign: { method: "POST", path: "/v1/campaigns/{id}/resume", sdk: "campaigns.resume" },
  cancelCampaign: { method: "POST", path: "/v1/campaigns/{id}/cancel", sdk: "campaigns.cancel" },

  listVoices: { method: "GET", path: "/v1/voices", sdk: "voices.list" },
  createVoice: { method: "POST", path: "/v1/voices", sdk: "voices.create" },
  getVoice: { method: "GET", path: "/v1/voices/{id}", sdk: "voices.retrieve" },
  updateVoice: { method: "PATCH", path: "/v1/voices/{id}", sdk: "voices.update" },
  deleteVoice: { method: "DELETE", path: "/v1/voices/{id}", sdk: "voices.del" },

  listKnowledgeBases: { method: "GET", path: "/v1/knowledge-bases", sdk: "knowledgeBases.list" },
  createKnowledgeBase: { method: "POST", path: "/v1/knowledge-bases", sdk: "knowledgeBases.create" },
  getKnowledgeBase: { method: "GET", path: "/v1/knowledge-bases/{id}", sdk: "knowledgeBases.retrieve" },
  updateKnowledgeBase: { method: "PATCH", path: "/v1/knowledge-bases/{id}", sdk: "knowledgeBases.update" },
  deleteKnowledgeBase: { method: "DELETE", path: "/v1/knowledge-bases/{id}", sdk: "knowledgeBases.del" },
  queryKnowledgeBase: { method: "POST", path: "/v1/knowledge-bases/{id}/query", sdk: "knowledgeBases.query" },
  listKnowledgeDocuments: { method: "GET", path: "/v1/knowledge-bases/{id}/documents", sdk: "knowledgeBases.documents.list" },
  addKnowledgeDocument: { method: "POST", path: "/v1/knowledge-bases/{id}/documents", sdk: "knowledgeBases.documents.create" },
  getKnowledgeDocument: {
    method: "GET",
    path: "/v1/knowledge-bases/{id}/documents/{documentId}",
    sdk: "knowledgeBases.documents.retrieve",
  },
  deleteKnowledgeDocument: {
    method: "DELETE",
    path: "/v1/knowledge-bases/{id}/documents/{documentId}",
    sdk: "knowledgeBases.documents.del",
  },

  listChats: { method: "GET", path: "/v1/chats", sdk: "chats.list" },
  getChat: { method: "GET", path: "/v1/chats/{id}", sdk: "chats.retrieve" },

  listWidgets: { method: "GET", path: "/v1/widgets", sdk: "widgets.list" },
  createWidget: { method: "POST", path: "/v1/widgets", sdk: "widgets.create" },
  getWidget: { method: "GET", path: "/v1/widgets/{id}", sdk: "widgets.retrieve" },
  updateWidget: { method: "PATCH", path: "/v1/widgets/{id}", sdk: "widgets.update" },
  deleteWidget: { method: "DELETE", path: "/v1/widgets/{id}", sdk: "widgets.del" },
  rotateWidgetToken: { method: "POST", path: "/v1/widgets/{id}/rotate-token", sdk: "widgets.rotateToken" },
  revokeWidget: { method: "POST", path: "/v1/widgets/{id}/revoke", sdk: "widgets.revoke" },

  listChannels: { method: "GET", path: "/v1/channels", sdk: "channels.list" },
  createChannel: { method: "POST", path: "/v1/channels", sdk: "channels.create" },
  getChannel: { method: "GET", path: "/v1/channels/{id}", sdk: "channels.retrieve" },
  updateChannel: { method: "PATCH", path: "/v1/channels/{id}", sdk: "channels.update" },
  deleteChannel: { method: "DELETE", path: "/v1/channels/{id}", sdk: "channels.del" },
  testChannel: { method: "POST", path: "/v1/channels/{id}/test", sdk: "channels.test" },

  chat: { method: "POST", path: "/v1/llm/chat", sdk: "chat.create" },
  chatCompletions: { method: "POST", path: "/v1/chat/completions", sdk: "chat.completions.create" },
  tts: { method: "POST", path: "/v1/tts", sdk: "tts.create" },
  audioSpeech: { method: "POST", path: "/v1/audio/speech", sdk: "audio.speech.create" },
  stt: { method: "POST", path: "/v1/stt", sdk: "stt.create" },
  audioTranscriptions: { method: "POST", path: "/v1/audio/transcriptions", sdk: "audio.transcriptions.create" },
  usage: { method: "GET", path: "/v1/usage", sdk: "usage.retrieve" },

  createWebhookEndpoint: { method: "POST", path: "/v1/webhook-endpoints", sdk: "webhookEndpoints.create" },
  listWebhookEndpoints: { method: "GET", path: "/v1/webhook-endpoints", sdk: "webhookEndpoints.list" },
  getWebhookEndpoint: { method: "GET", path: "/v1/webhook-endpoints/{id}", sdk: "webhookEndpoints.retrieve" },
  updateWebhookEndpoint: { method: "PATCH", path: "/v1/webhook-endpoints/{id}", sdk: "webhookEndpoints.update" },
  deleteWebhookEndpoint: { method: "DELETE", path: "/v1/webhook-endpoints/{id}", sdk: "webhookEndpoints.del" },
  sendTestWebhook: { method: "POST", path: "/v1/webhook-endpoints/{id}/test", sdk: "webhookEndpoints.sendTest" },
  rotateWebhookSecret: { method: "POST", path: "/v1/webhook-endpoints/{id}/rotate-secret", sdk: "webhookEndpoints.rotateSecret" },
  listTestReceiverCaptures: {
    method: "GET",
    path: "/v1/webhook-endpoints/{id}/test-receiver",
    sdk: "webhookEndpoints.testReceiverCaptures",
  },
  listWebhookDeliveries: { method: "GET", path: "/webhooks/{id}/deliveries", sdk: "webhookEndpoints.deliveries.list" },
  resendWebhookDelivery: {
    method: "POST",
    path: "/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend",
    sdk: "webhookEndpoints.deliveries.resend",
  },
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof OPERATIONS;
