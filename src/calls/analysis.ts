// Post-call analysis: one structured-output request to the agent's LLM (JSON Schema built from
// the agent's analysis plan), validated with zod; one retry when the model's answer does not
// validate. Metered to the call like its turns.
import { z } from "zod";
import type { Db } from "../db/client";
import type { Agent, CallAnalysis, CallReport, TranscriptTurn } from "../db/schema";
import type { AppConfig } from "../env";
import { meter } from "../metering/metered";
import type { Providers } from "../providers/registry";

const SENTIMENTS = ["positive", "neutral", "negative"] as const;
const MAX_TRANSCRIPT_CHARS = 40_000;

type Plan = Agent["analysisPlan"];

function fieldSchema(f: Plan["extractionFields"][number]): Record<string, unknown> {
  const base = { description: f.description };
  switch (f.type) {
    case "number":
      return { ...base, type: ["number", "null"] };
    case "boolean":
      return { ...base, type: ["boolean", "null"] };
    case "enum":
      return { ...base, type: ["string", "null"], enum: [...(f.choices ?? []), null] };
    default:
      return { ...base, type: ["string", "null"] };
  }
}

export function analysisJsonSchema(plan: Plan): Record<string, unknown> {
  const strings = { type: "array", items: { type: "string" } };
  return {
    type: "object",
    additionalProperties: false,
    required: ["summary", "sentiment", "topics", "actionItems", "criteriaResults", "extractedData"],
    properties: {
      summary: { type: "string", description: "Two or three sentences on what happened in the call." },
      sentiment: { type: "string", enum: [...SENTIMENTS], description: "The caller's overall sentiment." },
      topics: { ...strings, description: "Short topics discussed." },
      actionItems: { ...strings, description: "Follow-ups someone must do after the call." },
      criteriaResults: {
        type: "array",
        description: "One entry per success criterion, in the order given.",
        minItems: plan.successCriteria.length,
        maxItems: plan.successCriteria.length,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["criterion", "passed", "reason"],
          properties: {
            criterion: plan.successCriteria.length > 0 ? { type: "string", enum: plan.successCriteria } : { type: "string" },
            passed: { type: "boolean" },
            reason: { type: "string" },
          },
        },
      },
      extractedData: {
        type: "object",
        additionalProperties: false,
        required: plan.extractionFields.map((f) => f.name),
        properties: Object.fromEntries(plan.extractionFields.map((f) => [f.name, fieldSchema(f)])),
      },
    },
  };
}

function validator(plan: Plan) {
  const value = (f: Plan["extractionFields"][number]) => {
    switch (f.type) {
      case "number":
        return z.number().nullable();
      case "boolean":
        return z.boolean().nullable();
      case "enum":
        return z.enum(f.choices as [string, ...string[]]).nullable();
      default:
        return z.string().max(2_000).nullable();
    }
  };
  return z.object({
    // Over-long strings and lists are cut, not refused; a criterion left unjudged is refused.
    summary: z
      .string()
      .min(1)
      .transform((v) => v.slice(0, 4_000)),
    sentiment: z.enum(SENTIMENTS),
    topics: z.array(z.string().transform((v) => v.slice(0, 200))).transform((v) => v.slice(0, 20)),
    actionItems: z.array(z.string().transform((v) => v.slice(0, 500))).transform((v) => v.slice(0, 20)),
    criteriaResults: z
      .array(z.object({ criterion: z.string(), passed: z.boolean(), reason: z.string().transform((v) => v.slice(0, 1_000)) }))
      .refine((list) => plan.successCriteria.every((c) => list.some((r) => r.criterion === c)), "must judge each success criterion"),
    extractedData: z.strictObject(Object.fromEntries(plan.extractionFields.map((f) => [f.name, value(f)]))),
  });
}

export interface AnalysisResult {
  analysis: CallAnalysis;
  report: CallReport;
}

export class AnalysisError extends Error {}

const speaker = (t: TranscriptTurn) => ({ agent: "Agent", user: "Caller", tool: "Tool" })[t.role];

/** Runs the analysis; throws AnalysisError when the model's answer never validates. */
export async function analyzeCall(
  deps: { db: Db; config: AppConfig; providers: Pick<Providers, "chat"> },
  call: { id: string; organizationId: string; transcript: TranscriptTurn[] },
  agent: { llmModel: string; analysisPlan: Plan } | null,
): Promise<AnalysisResult> {
  const plan: Plan = agent?.analysisPlan ?? { summaryEnabled: true, successCriteria: [], extractionFields: [] };
  const model = agent?.llmModel ?? deps.config.DEFAULT_CHAT_MODEL;
  let transcript = [...call.transcript]
    .sort((a, b) => a.startMs - b.startMs)
    .map((t) => `${speaker(t)}: ${t.text}`)
    .join("\n");
  if (transcript.length > MAX_TRANSCRIPT_CHARS) transcript = `…${transcript.slice(-MAX_TRANSCRIPT_CHARS)}`;
  const criteria = plan.successCriteria.map((c, i) => `${i + 1}. ${c}`).join("\n") || "(none)";
  const fields = plan.extractionFields.map((f) => `- ${f.name} (${f.type}): ${f.description}`).join("\n") || "(none)";
  const messages = [
    {
      role: "system" as const,
      content:
        "You analyse phone calls between an AI agent and a caller. Answer in JSON that follows the schema. " +
        "Judge each success criterion from the transcript only; extract each field, or null when the call did not say.\n" +
        `Success criteria:\n${criteria}\nFields to extract:\n${fields}`,
    },
    { role: "user" as const, content: `Transcript:\n${transcript}` },
  ];
  const check = validator(plan);
  const provider = deps.providers.chat();
  let lastProblem = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    const completion = await meter(
      deps.db,
      { organizationId: call.organizationId, apiKeyId: null, method: "CALL", endpoint: `/v1/calls/${call.id}/analysis`, callId: call.id },
      { modality: "chat", provider: provider.name, model, maxQuantity: 4_000 + Math.ceil(transcript.length / 2) },
      async () => {
        const c = await provider.complete({
          model,
          messages,
          temperature: 0,
          max_tokens: 1_500,
          response_format: { type: "json_schema", json_schema: { name: "call_analysis", strict: true, schema: analysisJsonSchema(plan) } },
        });
        return {
          result: c,
          quantity: c.usage.total_tokens,
          promptTokens: c.usage.prompt_tokens,
          completionTokens: c.usage.completion_tokens,
        };
      },
    );
    const content = completion.choices[0]?.message.content ?? "";
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      lastProblem = "the model did not answer JSON";
      continue;
    }
    const result = check.safeParse(parsed);
    if (!result.success) {
      lastProblem = result.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ");
      continue;
    }
    const r = result.data;
    const passed = r.criteriaResults.filter((c) => c.passed).length;
    return {
      analysis: { summary: plan.summaryEnabled ? r.summary : "", sentiment: r.sentiment, topics: r.topics, actionItems: r.actionItems },
      report: {
        successScore: plan.successCriteria.length > 0 ? Math.round((passed / plan.successCriteria.length) * 100) / 100 : 1,
        criteriaResults: plan.successCriteria.map((criterion) => {
          const found = r.criteriaResults.find((c) => c.criterion === criterion);
          return { criterion, passed: found?.passed ?? false, reason: found?.reason ?? "" };
        }),
        extractedData: r.extractedData,
      },
    };
  }
  throw new AnalysisError(`The analysis did not validate after 2 attempts (${lastProblem}).`);
}
