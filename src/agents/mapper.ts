// Where the agents row (drizzle) and the API shapes (zod) meet; nowhere else.
import { jsonbMerge, type RowPatch } from "../db/patch";
import { type Agent, type AnalysisPlan, agents, KNOWLEDGE_DEFAULTS, TURN_TAKING_DEFAULTS, VOICEMAIL_DEFAULTS } from "../db/schema";
import { maskToolSecret } from "../tools/secret";
import type { AgentView, CreateAgentInput, UpdateAgentInput } from "./schema";

type NewAgentRow = typeof agents.$inferInsert;
type AgentPatch = RowPatch<NewAgentRow>;

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

/**
 * The API's view of an agent. `toolSecret` is the secret in clear or already masked
 * (src/agents/service.ts withToolSecret), masked unless `reveal`; null when the agent has none yet.
 */
export const toAgent = (row: Agent, toolSecret: string | null, reveal = false): AgentView => ({
  id: row.id,
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

/**
 * Only the fields sent. `metadata` and `voicemail` are replaced whole; `analysisPlan`, `turnTaking` and `knowledge` are merged key by key in
 * the UPDATE itself (jsonb ||), so two concurrent PATCHes of different sub-fields both land.
 */
export function toAgentPatch(input: UpdateAgentInput): AgentPatch {
  const { analysisPlan, turnTaking, knowledge, ...rest } = input;
  const patch: AgentPatch = {};
  for (const [key, value] of Object.entries(rest) as Array<[keyof typeof rest, unknown]>) {
    if (value !== undefined) Object.assign(patch, { [key]: value });
  }
  if (analysisPlan !== undefined) {
    const sent = Object.fromEntries(Object.entries(analysisPlan).filter(([, v]) => v !== undefined));
    patch.analysisPlan = jsonbMerge(agents.analysisPlan, sent);
  }
  if (turnTaking !== undefined) {
    const sent = Object.fromEntries(Object.entries(turnTaking).filter(([, v]) => v !== undefined));
    patch.turnTaking = jsonbMerge(agents.turnTaking, sent);
  }
  if (knowledge !== undefined) {
    const sent = Object.fromEntries(Object.entries(knowledge).filter(([, v]) => v !== undefined));
    patch.knowledge = jsonbMerge(agents.knowledge, sent);
  }
  return patch;
}
