// The agent form's fields ↔ the API's JSON shape: the form posts strings, createAgentSchema /
// updateAgentSchema want numbers, lists and objects; their issues come back on the fields.
import { AGENT_DEFAULTS, type AgentView } from "../../agents/schema";
import { KNOWLEDGE_DEFAULTS, TURN_TAKING_DEFAULTS, VOICEMAIL_DEFAULTS } from "../../db/schema";
import { type Form, jsonField, lines, many, num, one, opt } from "../forms";
import type { FieldErrors } from "../ui";

/** What the form shows: an agent's values, or what the user typed (the knowledge bases checked: a list). */
export type Values = Record<string, string | boolean | string[]>;

export const valuesOf = (a: AgentView | null): Values => {
  const d = a ?? {
    ...AGENT_DEFAULTS,
    name: "",
    personaId: crypto.randomUUID(),
    analysisPlan: { summaryEnabled: true, successCriteria: [], extractionFields: [] },
    turnTaking: TURN_TAKING_DEFAULTS,
    tools: [],
    toolSecret: null,
    knowledge: KNOWLEDGE_DEFAULTS,
    voicemail: VOICEMAIL_DEFAULTS,
  };
  return {
    name: d.name,
    personaId: d.personaId,
    systemPrompt: d.systemPrompt,
    firstMessage: d.firstMessage ?? "",
    language: d.language,
    voiceId: d.voiceId ?? "",
    llmModel: d.llmModel,
    temperature: String(d.temperature),
    maxDurationSeconds: String(d.maxDurationSeconds),
    silenceTimeoutSeconds: String(d.silenceTimeoutSeconds),
    endCallPhrases: d.endCallPhrases.join("\n"),
    metadata: JSON.stringify(d.metadata, null, 2),
    summaryEnabled: d.analysisPlan.summaryEnabled,
    successCriteria: d.analysisPlan.successCriteria.join("\n"),
    extractionFields: d.analysisPlan.extractionFields.length ? JSON.stringify(d.analysisPlan.extractionFields, null, 2) : "",
    eagerness: d.turnTaking.eagerness,
    minWaitMs: d.turnTaking.minWaitMs === null ? "" : String(d.turnTaking.minWaitMs),
    maxWaitMs: d.turnTaking.maxWaitMs === null ? "" : String(d.turnTaking.maxWaitMs),
    interruptionMinWords: String(d.turnTaking.interruptionMinWords),
    interruptionMinMs: d.turnTaking.interruptionMinMs === null ? "" : String(d.turnTaking.interruptionMinMs),
    tools: d.tools.length ? JSON.stringify(d.tools, null, 2) : "",
    toolSecret: d.toolSecret ?? "",
    knowledgeBaseIds: d.knowledge.knowledgeBaseIds,
    knowledgeTopK: String(d.knowledge.topK),
    knowledgeMaxDistance: d.knowledge.maxDistance === null ? "" : String(d.knowledge.maxDistance),
    knowledgeRetrieval: d.knowledge.retrieval,
    voicemailDetection: d.voicemail.detection,
    voicemailMessage: d.voicemail.message ?? "",
  };
};

export const typedValues = (form: Form): Values => ({
  ...Object.fromEntries(Object.keys(valuesOf(null)).map((k) => [k, one(form, k)])),
  summaryEnabled: one(form, "summaryEnabled") === "on",
  knowledgeBaseIds: many(form, "knowledgeBaseIds"),
  // Shown, never posted back.
  toolSecret: "",
});

/**
 * The Knowledge section's fields → the API's `knowledge` plan. The section posts a marker
 * (`knowledgeShown`): with none of its boxes checked the form still says "no knowledge base",
 * while a form without the section (a script, an older page) leaves the agent's plan as it is.
 */
const knowledgeOf = (form: Form) =>
  one(form, "knowledgeShown") === ""
    ? {}
    : {
        knowledge: {
          knowledgeBaseIds: many(form, "knowledgeBaseIds"),
          topK: num(form, "knowledgeTopK"),
          maxDistance: orNull(form, "knowledgeMaxDistance"),
          retrieval: opt(form, "knowledgeRetrieval"),
        },
      };

/** The Voicemail section → the API's `voicemail` plan; a form without the section leaves the agent's plan as it is. */
const voicemailOf = (form: Form) =>
  one(form, "voicemailDetection") === ""
    ? {}
    : {
        voicemail: {
          detection: one(form, "voicemailDetection"),
          message: one(form, "voicemailMessage").trim() === "" ? null : one(form, "voicemailMessage"),
        },
      };

/** Form fields → the API's JSON shape (then the API's schema decides); unparsable JSON goes to `errors`. */
export function inputOf(form: Form, errors: FieldErrors) {
  return {
    name: one(form, "name"),
    personaId: one(form, "personaId"),
    systemPrompt: one(form, "systemPrompt"),
    firstMessage: one(form, "firstMessage").trim() === "" ? null : one(form, "firstMessage"),
    language: one(form, "language"),
    voiceId: one(form, "voiceId") === "" ? null : one(form, "voiceId"),
    llmModel: one(form, "llmModel"),
    temperature: num(form, "temperature"),
    maxDurationSeconds: num(form, "maxDurationSeconds"),
    silenceTimeoutSeconds: num(form, "silenceTimeoutSeconds"),
    endCallPhrases: lines(form, "endCallPhrases"),
    metadata: jsonField(form, "metadata", {}, errors),
    analysisPlan: {
      summaryEnabled: one(form, "summaryEnabled") === "on",
      successCriteria: lines(form, "successCriteria"),
      extractionFields: jsonField(form, "extractionFields", [], errors),
    },
    turnTaking: {
      eagerness: opt(form, "eagerness"), // a form without the section (a script, an old page): the default
      minWaitMs: orNull(form, "minWaitMs"),
      maxWaitMs: orNull(form, "maxWaitMs"),
      interruptionMinWords: num(form, "interruptionMinWords"),
      interruptionMinMs: orNull(form, "interruptionMinMs"),
    },
    tools: jsonField(form, "tools", [], errors),
    ...knowledgeOf(form),
    ...voicemailOf(form),
  };
}

/** An optional number: empty is null (the deployment's default). */
const orNull = (form: Form, name: string) => num(form, name) ?? null;

/** Nested issue paths (analysisPlan.successCriteria.0) shown on the field that holds them. */
const FIELD_OF: Record<string, string> = {
  "analysisPlan.successCriteria": "successCriteria",
  "analysisPlan.extractionFields": "extractionFields",
  "analysisPlan.summaryEnabled": "summaryEnabled",
  "turnTaking.eagerness": "eagerness",
  "turnTaking.minWaitMs": "minWaitMs",
  "turnTaking.maxWaitMs": "maxWaitMs",
  "turnTaking.interruptionMinWords": "interruptionMinWords",
  "turnTaking.interruptionMinMs": "interruptionMinMs",
  "knowledge.knowledgeBaseIds": "knowledgeBaseIds",
  "knowledge.topK": "knowledgeTopK",
  "knowledge.maxDistance": "knowledgeMaxDistance",
  "knowledge.retrieval": "knowledgeRetrieval",
  "voicemail.detection": "voicemailDetection",
  "voicemail.message": "voicemailMessage",
};

export const onFields = (errors: FieldErrors): FieldErrors => {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const prefix = Object.keys(FIELD_OF).find((p) => path.startsWith(p));
    const field = prefix ? (FIELD_OF[prefix] as string) : (path.split(".")[0] as string);
    const detail =
      path.includes(".") && !prefix
        ? `${path}: ${message}`
        : prefix && path !== prefix
          ? `${path.slice(prefix.length + 1)}: ${message}`
          : message;
    out[field] ??= detail;
  }
  return out;
};
