// Request and response shapes of the Agents resource. Field limits and defaults follow what
// Vapi assistants, Retell agents and ElevenLabs agents accept; docs/agents.md says why.
import { z } from "@hono/zod-openapi";
import { KNOWLEDGE_DEFAULTS, TURN_TAKING_DEFAULTS, VOICEMAIL_DEFAULTS } from "../db/schema";
import { languageTag, metadataSchema, NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";
import { pageQuerySchema, pageSchema } from "../lib/pagination";
import { toolSchema, toolsSchema } from "../tools/schema";
import { VOICEMAIL_DETECTION, voicemailPlanSchema } from "./voicemail-schema";

export const AGENT_DEFAULTS = {
  systemPrompt: "",
  firstMessage: null,
  language: "en-US",
  voiceId: null,
  llmModel: "gpt-4o-mini",
  temperature: 0.7,
  maxDurationSeconds: 600,
  silenceTimeoutSeconds: 30,
  /** A new agent hangs up after its goodbye (not 30 s of billed silence later); [] to never end on a phrase. */
  endCallPhrases: ["goodbye"] as string[],
  metadata: {} as Record<string, unknown>,
  analysisPlan: { summaryEnabled: true, successCriteria: [] as string[], extractionFields: [] },
} as const;

export const EXTRACTION_TYPES = ["string", "number", "boolean", "enum"] as const;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}$/;
const EXAMPLE_ID = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

const uuid = (field: string) => z.uuid({ message: `${field} must be a UUID` });

const fields = {
  name: () => text({ min: 1, max: 200, trim: true, singleLine: true }).openapi({ example: "Front desk (Zürich) 🎧" }),
  personaId: () => uuid("personaId").openapi({ example: EXAMPLE_ID }),
  systemPrompt: () =>
    text({ max: 20_000 }).openapi({ example: "You are the front desk of Acme Dental. Book, move or cancel appointments." }),
  firstMessage: () =>
    text({ min: 1, max: 2_000 }).nullable().openapi({
      description: "Said when the call connects; null: the agent waits for the caller.",
      example: "Hi, Acme Dental, how can I help?",
    }),
  voiceId: () =>
    uuid("voiceId")
      .nullable()
      .openapi({ description: "A system voice or one this workspace owns; null: the platform's default voice.", example: EXAMPLE_ID }),
  llmModel: () =>
    z.string().regex(MODEL_NAME, "must be a model name of 1 to 100 letters, digits and . _ : / @ -").openapi({ example: "gpt-4o-mini" }),
  temperature: () => z.number().min(0).max(2).openapi({ description: "Sampling temperature, 0 to 2.", example: 0.7 }),
  maxDurationSeconds: () =>
    z.number().int().min(10).max(7_200).openapi({ description: "The call is ended after this long.", example: 600 }),
  silenceTimeoutSeconds: () =>
    z.number().int().min(5).max(600).openapi({ description: "The call is ended after this long without speech.", example: 30 }),
  endCallPhrases: () =>
    z
      .array(text({ min: 1, max: 200, trim: true, singleLine: true }))
      .max(20)
      .openapi({
        description:
          "When the agent says one of these as a farewell (opening a clause of its reply, or ending the reply, with no question after it), it hangs up once the reply has played.",
        example: ["goodbye", "have a nice day"],
      }),
};

const extractionFieldSchema = z
  .strictObject({
    name: z.string().regex(IDENTIFIER, "must be an identifier: a letter or _, then letters, digits or _, at most 64").openapi({
      example: "appointment_date",
    }),
    type: z.enum(EXTRACTION_TYPES).openapi({ example: "string" }),
    description: text({ min: 1, max: 1_000, trim: true }).openapi({ example: "The date the caller booked, as YYYY-MM-DD." }),
    choices: z
      .array(text({ min: 1, max: 100, trim: true, singleLine: true }))
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: "Required when type is enum, refused otherwise.", example: ["new", "existing"] }),
  })
  .superRefine((f, ctx) => {
    if (f.type === "enum" && f.choices === undefined)
      ctx.addIssue({ code: "custom", path: ["choices"], message: "is required when type is enum" });
    if (f.type !== "enum" && f.choices !== undefined) {
      ctx.addIssue({ code: "custom", path: ["choices"], message: "is only allowed when type is enum" });
    }
    if (f.choices && new Set(f.choices).size !== f.choices.length)
      ctx.addIssue({ code: "custom", path: ["choices"], message: "must be unique" });
  })
  .openapi("ExtractionField");

const analysisFields = {
  summaryEnabled: () => z.boolean().openapi({ description: "Write a summary of each call.", example: true }),
  successCriteria: () =>
    z
      .array(text({ min: 1, max: 1_000, trim: true }))
      .max(20)
      .openapi({ description: "Each is judged passed or failed after the call.", example: ["The caller booked an appointment"] }),
  extractionFields: () =>
    z
      .array(extractionFieldSchema)
      .max(30)
      .superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((f, i) => {
          if (seen.has(f.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicates another field's name (${f.name})` });
          seen.add(f.name);
        });
      })
      .openapi({ description: "Values extracted from each call into `report.extractedData`, keyed by name." }),
};

export const analysisPlanSchema = z
  .strictObject({
    summaryEnabled: analysisFields.summaryEnabled().default(true),
    successCriteria: analysisFields.successCriteria().default([]),
    extractionFields: analysisFields.extractionFields().default([]),
  })
  .openapi("AnalysisPlan");

const analysisPlanPatchSchema = z
  .strictObject({
    summaryEnabled: analysisFields.summaryEnabled().optional(),
    successCriteria: analysisFields.successCriteria().optional(),
    extractionFields: analysisFields.extractionFields().optional(),
  })
  .openapi("AnalysisPlanPatch", { description: "The sub-fields sent replace those of the current plan; the others are kept." });

export const EAGERNESS = ["patient", "normal", "eager"] as const;

const turnFields = {
  eagerness: () =>
    z.enum(EAGERNESS).openapi({
      description:
        "How readily the agent takes the turn: `eager` answers a turn that merely sounds finished, `patient` waits for a clear end (docs/agents.md).",
      example: "normal",
    }),
  minWaitMs: () =>
    z.number().int().min(0).max(2_000).nullable().openapi({
      description: "The quiet after which a turn that sounds finished ends (ms); null: the deployment's (200).",
      example: 200,
    }),
  maxWaitMs: () =>
    z.number().int().min(500).max(10_000).nullable().openapi({
      description:
        "The quiet after which a turn ends whatever it sounds like (ms); null: the transcription's own (500 in batch, Flux's 5,000).",
      example: 1_500,
    }),
  interruptionMinWords: () =>
    z.number().int().min(1).max(10).openapi({
      description: 'Words (not backchannels such as "mhm") the caller must say over the agent to interrupt it.',
      example: 1,
    }),
  interruptionMinMs: () =>
    z.number().int().min(200).max(5_000).nullable().openapi({
      description: "Sound this long over the agent interrupts it even before a word is recognized (ms); null: the deployment's (700).",
      example: 700,
    }),
};

/** The shortest wait must not exceed the longest (both set in one request; at run time the longest wins). */
const waitsInOrder = (plan: { minWaitMs?: number | null; maxWaitMs?: number | null }, ctx: z.RefinementCtx) => {
  if (plan.minWaitMs != null && plan.maxWaitMs != null && plan.minWaitMs > plan.maxWaitMs)
    ctx.addIssue({ code: "custom", path: ["minWaitMs"], message: `must not be greater than maxWaitMs (${plan.maxWaitMs})` });
};

export const turnTakingSchema = z
  .strictObject({
    eagerness: turnFields.eagerness().default(TURN_TAKING_DEFAULTS.eagerness),
    minWaitMs: turnFields.minWaitMs().default(TURN_TAKING_DEFAULTS.minWaitMs),
    maxWaitMs: turnFields.maxWaitMs().default(TURN_TAKING_DEFAULTS.maxWaitMs),
    interruptionMinWords: turnFields.interruptionMinWords().default(TURN_TAKING_DEFAULTS.interruptionMinWords),
    interruptionMinMs: turnFields.interruptionMinMs().default(TURN_TAKING_DEFAULTS.interruptionMinMs),
  })
  .superRefine(waitsInOrder)
  .openapi("TurnTaking");

const turnTakingPatchSchema = z
  .strictObject({
    eagerness: turnFields.eagerness().optional(),
    minWaitMs: turnFields.minWaitMs().optional(),
    maxWaitMs: turnFields.maxWaitMs().optional(),
    interruptionMinWords: turnFields.interruptionMinWords().optional(),
    interruptionMinMs: turnFields.interruptionMinMs().optional(),
  })
  .superRefine(waitsInOrder)
  .openapi("TurnTakingPatch", { description: "The sub-fields sent replace those of the current settings; the others are kept." });

export const KNOWLEDGE_RETRIEVAL = ["every_turn", "tool"] as const;
/** The most knowledge bases one agent searches. */
export const MAX_AGENT_KNOWLEDGE_BASES = 10;

const knowledgeFields = {
  knowledgeBaseIds: () =>
    z
      .array(uuid("knowledgeBaseIds[]"))
      .max(MAX_AGENT_KNOWLEDGE_BASES)
      .refine((ids) => new Set(ids).size === ids.length, { message: "must not name a knowledge base twice" })
      .openapi({ description: `The workspace's knowledge bases the agent answers from (at most ${MAX_AGENT_KNOWLEDGE_BASES}).` }),
  topK: () => z.number().int().min(1).max(10).openapi({ description: "Passages handed to the LLM per search, 1 to 10.", example: 3 }),
  maxDistance: () =>
    z.number().min(0).max(2).nullable().openapi({
      description: "Cosine distance beyond which a passage is left out (0 identical, 2 opposite); null: none is.",
      example: 0.8,
    }),
  retrieval: () =>
    z.enum(KNOWLEDGE_RETRIEVAL).openapi({
      description:
        "`every_turn`: the caller's words are searched before every reply (in parallel with end-of-turn detection on calls); `tool`: only when the LLM calls `search_knowledge`.",
    }),
};

export const knowledgePlanSchema = z
  .strictObject({
    knowledgeBaseIds: knowledgeFields.knowledgeBaseIds().default(() => []),
    topK: knowledgeFields.topK().default(KNOWLEDGE_DEFAULTS.topK),
    maxDistance: knowledgeFields.maxDistance().default(KNOWLEDGE_DEFAULTS.maxDistance),
    retrieval: knowledgeFields.retrieval().default(KNOWLEDGE_DEFAULTS.retrieval),
  })
  .openapi("KnowledgePlan", { description: 'What the agent answers from (docs/knowledge.md, "Agents").' });

const knowledgePatchSchema = z
  .strictObject({
    knowledgeBaseIds: knowledgeFields.knowledgeBaseIds().optional(),
    topK: knowledgeFields.topK().optional(),
    maxDistance: knowledgeFields.maxDistance().optional(),
    retrieval: knowledgeFields.retrieval().optional(),
  })
  .openapi("KnowledgePlanPatch", { description: "The sub-fields sent replace those of the current plan; the others are kept." });

/** An agent's whole configuration: the agent's own fields, and what each version keeps. */
export const agentConfigSchema = z
  .object({
    name: z.string(),
    personaId: z.uuid(),
    systemPrompt: z.string(),
    firstMessage: z.string().nullable(),
    language: z.string().openapi({ example: "en-US" }),
    voiceId: z.uuid().nullable(),
    llmModel: z.string().openapi({ example: "gpt-4o-mini" }),
    temperature: z.number().openapi({ example: 0.7 }),
    maxDurationSeconds: z.number().int().openapi({ example: 600 }),
    silenceTimeoutSeconds: z.number().int().openapi({ example: 30 }),
    endCallPhrases: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()).openapi({ example: { crmAccountId: "A-1042" } }),
    analysisPlan: z
      .object({
        summaryEnabled: z.boolean(),
        successCriteria: z.array(z.string()),
        extractionFields: z.array(
          z.object({ name: z.string(), type: z.enum(EXTRACTION_TYPES), description: z.string(), choices: z.array(z.string()).optional() }),
        ),
      })
      .openapi({ example: { summaryEnabled: true, successCriteria: ["The caller booked an appointment"], extractionFields: [] } }),
    turnTaking: z
      .object({
        eagerness: z.enum(EAGERNESS),
        minWaitMs: z.number().int().nullable(),
        maxWaitMs: z.number().int().nullable(),
        interruptionMinWords: z.number().int(),
        interruptionMinMs: z.number().int().nullable(),
      })
      .openapi({
        description: 'When the caller\'s turn ends and what interrupts the agent (docs/agents.md, "Turn-taking").',
        example: { eagerness: "normal", minWaitMs: null, maxWaitMs: null, interruptionMinWords: 1, interruptionMinMs: null },
      }),
    tools: z.array(toolSchema).openapi({ description: "Functions of yours the agent may call, and the built-ins (docs/tools.md)." }),
    knowledge: z
      .object({
        knowledgeBaseIds: z.array(z.uuid()),
        topK: z.number().int(),
        maxDistance: z.number().nullable(),
        retrieval: z.enum(KNOWLEDGE_RETRIEVAL),
      })
      .openapi({
        description: 'What the agent answers from (docs/knowledge.md, "Agents").',
        example: { knowledgeBaseIds: [], topK: 3, maxDistance: null, retrieval: "every_turn" },
      }),
    voicemail: z.object({ detection: z.enum(VOICEMAIL_DETECTION), message: z.string().nullable() }).openapi({
      description: 'Answering-machine detection on outbound phone calls (docs/campaigns.md, "Voicemail").',
      example: { detection: "off", message: null },
    }),
  })
  .openapi("AgentConfig");

export type AgentConfigView = z.infer<typeof agentConfigSchema>;

export const agentSchema = z
  .object({
    id: z.uuid().openapi({ example: EXAMPLE_ID }),
    ...agentConfigSchema.shape,
    liveVersion: z.number().int().openapi({ description: "The version calls, chats and campaigns run with.", example: 2 }),
    latestVersion: z.number().int().openapi({ description: 'The newest version (docs/agents.md, "Versions").', example: 3 }),
    hasDraft: z.boolean().openapi({ description: "A version newer than the live one exists: latestVersion > liveVersion.", example: true }),
    toolSecret: z.string().nullable().openapi({
      description:
        "Signs the agent's tool requests (X-Service-Signature, as webhooks). In full in the create and rotate responses (and the update that first created it), `tss_...XXXXXX` otherwise.",
      example: "tss_...a1B2c3",
    }),
    createdAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
    updatedAt: z.iso.datetime().openapi({ example: "2025-01-15T09:30:00.000Z" }),
  })
  .openapi("Agent");

export type AgentView = z.infer<typeof agentSchema>;

const CREATE_EXAMPLE = {
  name: "Front desk",
  personaId: EXAMPLE_ID,
  systemPrompt: "You are the front desk of Acme Dental. Book, move or cancel appointments.",
  firstMessage: "Hi, Acme Dental, how can I help?",
  language: "en-US",
  voiceId: "00000000-0000-7000-8000-000000000003",
  temperature: 0.5,
  endCallPhrases: ["goodbye"],
  metadata: { crmAccountId: "A-1042" },
  analysisPlan: {
    successCriteria: ["The caller booked an appointment"],
    extractionFields: [{ name: "visit_type", type: "enum", description: "New or existing patient.", choices: ["new", "existing"] }],
  },
};

export const createAgentSchema = z
  .strictObject({
    name: fields.name(),
    personaId: fields.personaId(),
    systemPrompt: fields.systemPrompt().default(AGENT_DEFAULTS.systemPrompt),
    firstMessage: fields.firstMessage().default(AGENT_DEFAULTS.firstMessage),
    language: languageTag().default(AGENT_DEFAULTS.language),
    voiceId: fields.voiceId().default(AGENT_DEFAULTS.voiceId),
    llmModel: fields.llmModel().default(AGENT_DEFAULTS.llmModel),
    temperature: fields.temperature().default(AGENT_DEFAULTS.temperature),
    maxDurationSeconds: fields.maxDurationSeconds().default(AGENT_DEFAULTS.maxDurationSeconds),
    silenceTimeoutSeconds: fields.silenceTimeoutSeconds().default(AGENT_DEFAULTS.silenceTimeoutSeconds),
    endCallPhrases: fields.endCallPhrases().default(() => [...AGENT_DEFAULTS.endCallPhrases]),
    metadata: metadataSchema().default(() => ({})),
    analysisPlan: analysisPlanSchema.default(() => ({ summaryEnabled: true, successCriteria: [], extractionFields: [] })),
    turnTaking: turnTakingSchema.default(() => ({ ...TURN_TAKING_DEFAULTS })),
    tools: toolsSchema.default(() => []),
    knowledge: knowledgePlanSchema.default(() => ({ ...KNOWLEDGE_DEFAULTS, knowledgeBaseIds: [] })),
    voicemail: voicemailPlanSchema.default(() => ({ ...VOICEMAIL_DEFAULTS })),
  })
  .openapi("CreateAgent", { example: CREATE_EXAMPLE });

export type CreateAgentInput = z.infer<typeof createAgentSchema>;

export const updateAgentSchema = z
  .strictObject({
    name: fields.name().optional(),
    personaId: fields.personaId().optional(),
    systemPrompt: fields.systemPrompt().optional(),
    firstMessage: fields.firstMessage().optional(),
    language: languageTag().optional(),
    voiceId: fields.voiceId().optional(),
    llmModel: fields.llmModel().optional(),
    temperature: fields.temperature().optional(),
    maxDurationSeconds: fields.maxDurationSeconds().optional(),
    silenceTimeoutSeconds: fields.silenceTimeoutSeconds().optional(),
    endCallPhrases: fields.endCallPhrases().optional(),
    metadata: metadataSchema().optional().openapi({ description: "Replaces the whole metadata object; send {} to clear it." }),
    analysisPlan: analysisPlanPatchSchema.optional(),
    turnTaking: turnTakingPatchSchema.optional(),
    tools: toolsSchema.optional().openapi({ description: "Replaces the whole list; send [] to remove every tool." }),
    knowledge: knowledgePatchSchema.optional(),
    voicemail: voicemailPlanSchema.optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateAgent", { example: { firstMessage: null, temperature: 0.3, analysisPlan: { summaryEnabled: false } } });

export type UpdateAgentInput = z.infer<typeof updateAgentSchema>;

export const listAgentsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: "Only agents whose name contains this (case-insensitive).", example: "desk" }),
  voiceId: uuid("voiceId").optional().openapi({ description: "Only agents using this voice.", example: EXAMPLE_ID }),
});

export const agentPageSchema = pageSchema(agentSchema, "AgentPage");
