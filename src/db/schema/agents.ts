import { doublePrecision, index, integer, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { organizations } from "./organizations";
import type { AgentTool } from "./tools";
import { id, timestamps } from "./util";
import { voices } from "./voices";

export interface ExtractionField {
  name: string;
  type: "string" | "number" | "boolean" | "enum";
  description: string;
  choices?: string[];
}

export interface AnalysisPlan {
  summaryEnabled: boolean;
  successCriteria: string[];
  extractionFields: ExtractionField[];
}

/** How the agent takes turns (docs/agents.md, "Turn-taking"); null fields: the deployment's defaults. */
export interface TurnTakingPlan {
  eagerness: "patient" | "normal" | "eager";
  minWaitMs: number | null;
  maxWaitMs: number | null;
  interruptionMinWords: number;
  interruptionMinMs: number | null;
}

export const TURN_TAKING_DEFAULTS: TurnTakingPlan = {
  eagerness: "normal",
  minWaitMs: null,
  maxWaitMs: null,
  interruptionMinWords: 1,
  interruptionMinMs: null,
};

/** What the agent answers from (docs/knowledge.md, "Agents"). */
export interface KnowledgePlan {
  /** The workspace's knowledge bases it searches; none: no retrieval. */
  knowledgeBaseIds: string[];
  /** How many passages a search hands the LLM. */
  topK: number;
  /** Cosine distance beyond which a passage is left out; null: none is. */
  maxDistance: number | null;
  /** `every_turn`: searched before each reply; `tool`: only when the LLM calls search_knowledge. */
  retrieval: "every_turn" | "tool";
}

export const KNOWLEDGE_DEFAULTS: KnowledgePlan = { knowledgeBaseIds: [], topK: 3, maxDistance: null, retrieval: "every_turn" };

/**
 * What an outbound phone call does when answering-machine detection hears a machine (docs/campaigns.md,
 * "Voicemail"): `off`, no detection; `hang-up` at once; `leave-message`: wait for the beep (or the
 * greeting's end), say `message` (`{{variables}}` filled like the first message), then hang up.
 * Either way the call ends with reason `voicemail`.
 */
export interface VoicemailPlan {
  detection: "off" | "hang-up" | "leave-message";
  message: string | null;
}

export const VOICEMAIL_DEFAULTS: VoicemailPlan = { detection: "off", message: null };

export const agents = pgTable(
  "agents",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    personaId: uuid("persona_id").notNull(),
    systemPrompt: text("system_prompt").notNull().default(""),
    firstMessage: text("first_message"),
    language: text("language").notNull().default("en-US"),
    voiceId: uuid("voice_id").references(() => voices.id, { onDelete: "set null" }),
    llmModel: text("llm_model").notNull(),
    temperature: doublePrecision("temperature").notNull(),
    maxDurationSeconds: integer("max_duration_seconds").notNull(),
    silenceTimeoutSeconds: integer("silence_timeout_seconds").notNull(),
    endCallPhrases: jsonb("end_call_phrases").$type<string[]>().notNull().default([]),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    analysisPlan: jsonb("analysis_plan").$type<AnalysisPlan>().notNull(),
    turnTaking: jsonb("turn_taking").$type<TurnTakingPlan>().notNull().default(TURN_TAKING_DEFAULTS),
    /** docs/tools.md: functions of the customer's and the built-ins (end_call, transfer_call). */
    tools: jsonb("tools").$type<AgentTool[]>().notNull().default([]),
    knowledge: jsonb("knowledge").$type<KnowledgePlan>().notNull().default(KNOWLEDGE_DEFAULTS),
    voicemail: jsonb("voicemail").$type<VoicemailPlan>().notNull().default(VOICEMAIL_DEFAULTS),
    /**
     * The secret that signs this agent's tool requests (`tss_` + 40), sealed with SECRETS_KEK like
     * webhook endpoint secrets (src/tools/secret.ts). Null until the agent first has a function tool.
     */
    toolSecret: text("tool_secret"),
    /**
     * Versions (docs/agents.md, "Versions"): the row's configuration is always that of `liveVersion`;
     * `latestVersion` numbers the next one (bumped under the row's lock, so concurrent changes get
     * distinct numbers). Versions above `liveVersion` are drafts, kept only in agent_versions.
     */
    liveVersion: integer("live_version").notNull().default(1),
    latestVersion: integer("latest_version").notNull().default(1),
    ...timestamps,
  },
  (t) => [index("agents_org_idx").on(t.organizationId, t.id)],
);

export type Agent = typeof agents.$inferSelect;
