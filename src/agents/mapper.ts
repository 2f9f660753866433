// Where the agents row (drizzle) and the API shapes (zod) meet; nowhere else.
import {
  type Agent,
  type AgentConfig,
  type AgentVersion,
  type AnalysisPlan,
  type agents,
  KNOWLEDGE_DEFAULTS,
  TURN_TAKING_DEFAULTS,
  VOICEMAIL_DEFAULTS,
} from "../db/schema";
import { maskToolSecret } from "../tools/secret";
import type { ListedVersion } from "./queries/versions";
import type { AgentConfigView, AgentView, CreateAgentInput } from "./schema";
import type { AgentVersionSummaryView, AgentVersionView } from "./versions-schema";

type NewAgentRow = typeof agents.$inferInsert & AgentConfig & { id: string; organizationId: string };

const toAnalysisPlan = (plan: AnalysisPlan): AgentView["analysisPlan"] => ({
  summaryEnabled: plan.summaryEnabled,
  successCriteria: plan.successCriteria,
  extractionFields: plan.extractionFields.map((f) => ({
    name: f.name,
    type: f.type,
    description: f.description,
    ...(f.choices ? { choices: f.choices } : {}),
  })),
});

/** A configuration as the API shows it (an agent's, a version's): the plans with their defaults filled. */
export const toAgentConfig = (row: AgentConfig): AgentConfigView => ({
  name: row.name,
  personaId: row.personaId,
  systemPrompt: row.systemPrompt,
  firstMessage: row.firstMessage,
  language: row.language,
  voiceId: row.voiceId,
  llmModel: row.llmModel,
  temperature: row.temperature,
  maxDurationSeconds: row.maxDurationSeconds,
  silenceTimeoutSeconds: row.silenceTimeoutSeconds,
  endCallPhrases: row.endCallPhrases,
  metadata: row.metadata,
  analysisPlan: toAnalysisPlan(row.analysisPlan),
  turnTaking: { ...TURN_TAKING_DEFAULTS, ...row.turnTaking },
  tools: row.tools,
  knowledge: { ...KNOWLEDGE_DEFAULTS, ...row.knowledge },
  voicemail: { ...VOICEMAIL_DEFAULTS, ...row.voicemail },
});

/**
 * The API's view of an agent: its live configuration and its versions' numbers. `toolSecret` is the
 * secret in clear or already masked (src/agents/service.ts withToolSecret), masked unless `reveal`;
 * null when the agent has none yet.
 */
export const toAgent = (row: Agent, toolSecret: string | null, reveal = false): AgentView => ({
  id: row.id,
  ...toAgentConfig(row),
  liveVersion: row.liveVersion,
  latestVersion: row.latestVersion,
  hasDraft: row.latestVersion > row.liveVersion,
  toolSecret: toolSecret === null ? null : reveal ? toolSecret : maskToolSecret(toolSecret),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toNewAgentRow = (organizationId: string, input: CreateAgentInput, id: string, sealedToolSecret: string): NewAgentRow => ({
  id,
  organizationId,
  name: input.name,
  personaId: input.personaId,
  systemPrompt: input.systemPrompt,
  firstMessage: input.firstMessage,
  language: input.language,
  voiceId: input.voiceId,
  llmModel: input.llmModel,
  temperature: input.temperature,
  maxDurationSeconds: input.maxDurationSeconds,
  silenceTimeoutSeconds: input.silenceTimeoutSeconds,
  endCallPhrases: input.endCallPhrases,
  metadata: input.metadata,
  analysisPlan: input.analysisPlan,
  turnTaking: input.turnTaking,
  tools: input.tools,
  knowledge: input.knowledge,
  voicemail: input.voicemail,
  toolSecret: sealedToolSecret,
});

/** A version as the list shows it; `liveVersion` is its agent's. */
export const toAgentVersionSummary = (row: ListedVersion | AgentVersion, liveVersion: number): AgentVersionSummaryView => ({
  agentId: row.agentId,
  version: row.version,
  live: row.version === liveVersion,
  changes: row.changes,
  createdBy: { type: row.createdByType, id: row.createdById },
  createdAt: row.createdAt.toISOString(),
});

/** One version with its whole configuration. */
export const toAgentVersion = (row: AgentVersion, liveVersion: number): AgentVersionView => ({
  ...toAgentVersionSummary(row, liveVersion),
  config: toAgentConfig(row.config),
});
