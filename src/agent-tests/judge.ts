// The judge (docs/agent-tests.md, "Judging"): one LLM call given the transcript and the test's
// criteria, answering JSON (a strict JSON Schema where the provider supports it), read with zod. An
// answer that cannot be read is no verdict: the run ends `error` with the reason, never a guess.
// The sandbox judges by the first words of this prompt (dev/sandbox/agent-tests.ts).
import { z } from "zod";
import type { ChatTurn, TestCriteria } from "../db/schema";
import type { ChatMessage } from "../providers/types";

export const JUDGE_PROMPT_START = "You judge a test conversation between an AI agent and a simulated caller.";
export const JUDGE_MAX_TOKENS = 1_500;
const MAX_TRANSCRIPT_CHARS = 40_000;
export const UNREADABLE = "the judge's answer could not be read";

const SPEAKER = { agent: "Agent", user: "Caller", tool: "Tool" } as const;

/** The transcript as the judge reads it: one line a turn, tool turns with their name and outcome. */
export function transcriptText(transcript: readonly ChatTurn[]): string {
  const text = transcript
    .map((t) => (t.role === "tool" && t.tool ? `Tool: ${t.tool.name} (${t.tool.outcome})` : `${SPEAKER[t.role]}: ${t.text}`))
    .join("\n");
  return text.length > MAX_TRANSCRIPT_CHARS ? `…${text.slice(-MAX_TRANSCRIPT_CHARS)}` : text;
}

export function judgeMessages(criteria: TestCriteria, transcript: readonly ChatTurn[]): ChatMessage[] {
  const system = [
    JUDGE_PROMPT_START,
    "Judge each success criterion from the transcript only, with a one-sentence reason; extract each field, or null when the conversation did not say.",
    'Answer in JSON: {"criteriaResults": [{"criterion", "passed", "reason"}], "extractedData": {<field name>: <value or null>}}.',
    `Success criteria (JSON): ${JSON.stringify(criteria.successCriteria)}`,
    `Fields to extract (JSON): ${JSON.stringify(criteria.extractionFields)}`,
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: `Transcript:\n${transcriptText(transcript)}` },
  ];
}

/** The answer's JSON Schema (OpenAI's strict structured outputs). */
export function judgeSchema(criteria: TestCriteria): Record<string, unknown> {
  const nullable = (type: string) => ({ type: [type, "null"] });
  return {
    type: "object",
    additionalProperties: false,
    required: ["criteriaResults", "extractedData"],
    properties: {
      criteriaResults: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["criterion", "passed", "reason"],
          properties: { criterion: { type: "string" }, passed: { type: "boolean" }, reason: { type: "string" } },
        },
      },
      extractedData: {
        type: "object",
        additionalProperties: false,
        required: criteria.extractionFields.map((f) => f.name),
        properties: Object.fromEntries(
          criteria.extractionFields.map((f) => [
            f.name,
            f.type === "enum"
              ? { type: ["string", "null"], enum: [...(f.choices ?? []), null] }
              : nullable(f.type === "number" ? "number" : f.type === "boolean" ? "boolean" : "string"),
          ]),
        ),
      },
    },
  };
}

export const judgeResponseFormat = (criteria: TestCriteria) => ({
  type: "json_schema",
  json_schema: { name: "test_judgement", strict: true, schema: judgeSchema(criteria) },
});

const answerSchema = z.object({
  criteriaResults: z.array(z.object({ criterion: z.string(), passed: z.boolean(), reason: z.string() })),
  extractedData: z.record(z.string(), z.unknown()).default({}),
});

export interface Judgement {
  criteria: Array<{ criterion: string; passed: boolean; reason: string }>;
  extractedData: Record<string, unknown>;
}

export class JudgeUnreadable extends Error {}

/** Strips a ```json fence some models put around their answer. */
const unfenced = (s: string) => /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(s.trim())?.[1] ?? s.trim();

/**
 * The verdict in the judge's answer: each criterion of the test, in the test's order, with the
 * judge's reason. Throws JudgeUnreadable (saying what was wrong) when the answer is not JSON, not
 * of the shape asked, or leaves a criterion unjudged.
 */
export function readJudgement(answer: string, criteria: TestCriteria): Judgement {
  let parsed: unknown;
  try {
    parsed = JSON.parse(unfenced(answer));
  } catch {
    throw new JudgeUnreadable(`${UNREADABLE}: it was not JSON (${JSON.stringify(answer.slice(0, 120))})`);
  }
  const read = answerSchema.safeParse(parsed);
  if (!read.success) {
    const issue = read.error.issues[0];
    throw new JudgeUnreadable(`${UNREADABLE}: ${issue ? `${issue.path.join(".") || "the answer"}: ${issue.message}` : "unexpected shape"}`);
  }
  const norm = (s: string) => s.trim().toLowerCase();
  const out = criteria.successCriteria.map((criterion, i) => {
    // By its text; else by its place, for a judge that reworded it.
    const found =
      read.data.criteriaResults.find((r) => norm(r.criterion) === norm(criterion)) ??
      (read.data.criteriaResults.length === criteria.successCriteria.length ? read.data.criteriaResults[i] : undefined);
    if (!found) throw new JudgeUnreadable(`${UNREADABLE}: it did not judge the criterion ${JSON.stringify(criterion)}`);
    return { criterion, passed: found.passed, reason: found.reason.slice(0, 1_000) };
  });
  const extractedData = Object.fromEntries(criteria.extractionFields.map((f) => [f.name, read.data.extractedData[f.name] ?? null]));
  return { criteria: out, extractedData };
}
