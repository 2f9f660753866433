// Request and response shapes of agent tests and their runs (docs/agent-tests.md). The criteria
// are the analysis plan's (src/agents/schema.ts): the same success criteria and extraction fields
// a call's analysis judges.
import { z } from "@hono/zod-openapi";
import { analysisPlanSchema } from "../agents/schema";
import { TEST_RUN_MODES, TEST_RUN_STATUSES } from "../db/schema/agent-tests";
import { NON_EMPTY_PATCH, nonEmptyPatch, text } from "../lib/fields";
import { pageQuerySchema, pageSchema } from "../lib/pagination";

/** A simulated conversation's turn cap when the scenario names none, and the most it may name. */
export const DEFAULT_MAX_TURNS = 10;
export const MAX_TURNS = 20;
/** The most tests one agent has (a run of all of them is one request). */
export const MAX_TESTS_PER_AGENT = 50;

const simulatedSchema = z
  .strictObject({
    kind: z.literal("simulated"),
    persona: text({ min: 1, max: 2_000, trim: true }).openapi({
      description: "Who the simulated caller is and how they speak.",
      example: "A busy parent, polite but in a hurry.",
    }),
    goal: text({ min: 1, max: 2_000, trim: true }).openapi({
      description: "What the caller wants; they end the conversation (`[END]`) once it is reached or cannot be.",
      example: "Book a check-up for next Tuesday morning.",
    }),
    firstMessage: text({ min: 1, max: 2_000, trim: true })
      .optional()
      .openapi({ description: "The caller's first words, said as written; otherwise the simulated caller chooses them." }),
    maxTurns: z
      .number()
      .int()
      .min(1)
      .max(MAX_TURNS)
      .default(DEFAULT_MAX_TURNS)
      .openapi({
        description: `The most exchanges (caller message and agent reply); a caller still talking then fails the run. 1 to ${MAX_TURNS}.`,
      }),
  })
  .openapi("SimulatedScenario");

const scriptSchema = z
  .strictObject({
    kind: z.literal("script"),
    turns: z
      .array(text({ min: 1, max: 2_000, trim: true }))
      .min(1)
      .max(MAX_TURNS)
      .openapi({
        description: "The caller's messages, each said after the agent's reply to the one before.",
        example: ["Hi", "Where is my order 7?"],
      }),
  })
  .openapi("ScriptScenario");

export const scenarioSchema = z.discriminatedUnion("kind", [simulatedSchema, scriptSchema]).openapi("TestScenario", {
  description: "A simulated caller (an LLM with a persona and a goal) or a fixed script of the caller's turns.",
});

export const criteriaSchema = analysisPlanSchema
  .pick({ successCriteria: true, extractionFields: true })
  .openapi("TestCriteria", { description: "Judged from the transcript once the conversation ends, as a call's analysis plan is." });

export const toolExpectationSchema = z
  .strictObject({
    tool: z
      .string()
      .min(1)
      .max(64)
      .openapi({ description: "The tool's name (a function tool's `name`, `end_call`, `search_knowledge`).", example: "lookup_order" }),
    called: z.boolean().default(true).openapi({ description: "false: the run fails if the agent calls it." }),
    arguments: z
      // A value, or `{contains}` (an object with that one string key): one schema, so the document says "any value".
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description: "Arguments one of its calls must have: each equal (JSON), or `{contains}` for a string.",
        example: { orderId: "7" },
      }),
  })
  .openapi("ToolExpectation");

const testFields = {
  name: () => text({ min: 1, max: 200, trim: true, singleLine: true }).openapi({ example: "Books a check-up" }),
  toolExpectations: () => z.array(toolExpectationSchema).max(20),
  judgeModel: () =>
    z.string().min(1).max(100).nullable().openapi({
      description: "The model that plays the simulated caller and judges; null: the deployment's default chat model.",
    }),
};

export const createTestSchema = z
  .strictObject({
    name: testFields.name(),
    scenario: scenarioSchema,
    criteria: criteriaSchema.default({ successCriteria: [], extractionFields: [] }),
    toolExpectations: testFields.toolExpectations().default([]),
    judgeModel: testFields.judgeModel().default(null),
  })
  .openapi("CreateAgentTest", {
    example: {
      name: "Order status",
      scenario: { kind: "script", turns: ["Where is my order 7?"] },
      criteria: { successCriteria: ['The agent says "order 7"'], extractionFields: [] },
      toolExpectations: [{ tool: "lookup_order", called: true, arguments: { orderId: "7" } }],
      judgeModel: null,
    },
  });
export type CreateTestInput = z.infer<typeof createTestSchema>;

export const updateTestSchema = z
  .strictObject({
    name: testFields.name().optional(),
    scenario: scenarioSchema.optional(),
    criteria: criteriaSchema.optional(),
    toolExpectations: testFields.toolExpectations().optional(),
    judgeModel: testFields.judgeModel().optional(),
  })
  .refine(nonEmptyPatch, NON_EMPTY_PATCH)
  .openapi("UpdateAgentTest", { description: "The fields sent replace the test's; the others are kept." });
export type UpdateTestInput = z.infer<typeof updateTestSchema>;

const time = () => z.string().openapi({ format: "date-time" });

export const agentTestSchema = z
  .object({
    id: z.uuid(),
    agentId: z.uuid(),
    name: z.string(),
    scenario: scenarioSchema,
    criteria: criteriaSchema,
    toolExpectations: z.array(toolExpectationSchema),
    judgeModel: z.string().nullable(),
    createdAt: time(),
    updatedAt: time(),
  })
  .openapi("AgentTest");
export type AgentTestView = z.infer<typeof agentTestSchema>;

export const agentTestPageSchema = pageSchema(agentTestSchema, "AgentTestPage");

const judged = z.object({ passed: z.boolean(), reason: z.string() });

const replayResultSchema = z.object({
  source: z.object({ kind: z.enum(["call", "chat"]), id: z.uuid() }),
  mode: z.enum(["chat", "voice"]).openapi({
    description: "`chat`: the caller turns said to the agent as text; `voice`: spoken through a web call (the run's `callId`).",
  }),
  differingTurns: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "How many caller turns got a different reply (null until the replay has played)." }),
  turns: z
    .array(
      z.object({
        index: z.number().int().openapi({ description: "The caller turn's position, from 0." }),
        caller: z.string().openapi({ description: "What the caller said (the recorded user turn)." }),
        recorded: z.string().openapi({ description: "The agent's reply then." }),
        replayed: z.string().nullable().openapi({ description: "The agent's reply now; null when the replay did not reach the turn." }),
        differs: z.boolean().openapi({ description: "The two differ after white space is collapsed and case ignored." }),
      }),
    )
    .nullable(),
});

export const testRunSchema = z
  .object({
    id: z.uuid(),
    testId: z.uuid().nullable().openapi({ description: "The test run; null for a replay." }),
    testName: z
      .string()
      .nullable()
      .openapi({ description: "The test's name when the run was read (null if it was deleted, and for a replay)." }),
    agentId: z.uuid(),
    agentVersion: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The agent's version it plays against: the one named when it was started, else the live version then." }),
    batchId: z.uuid().nullable().openapi({ description: "Runs started together by POST /v1/agents/{id}/tests/runs share it." }),
    mode: z.enum(TEST_RUN_MODES).openapi({
      description:
        "`chat`: a test's scenario played as a chat; `voice`: played as a web call through the whole voice pipeline; `replay`: a past call or chat replayed.",
    }),
    callId: z.uuid().nullable().openapi({
      description:
        "Voice runs: the web call the run placed (GET /v1/calls/{id}: its recording, transcript and per-reply latency), set once placed; null otherwise.",
    }),
    replay: replayResultSchema
      .nullable()
      .openapi({ description: "Replays: the call or chat replayed, and each caller turn's reply then and now; null for a test run." }),
    status: z.enum(TEST_RUN_STATUSES).openapi({
      description:
        "`queued`, `running`, then final: `passed` (every criterion and expectation), `failed` (one did not, or a cap was reached), `error` (the run could not be judged).",
    }),
    transcript: z.array(
      z.object({
        role: z.enum(["agent", "user", "tool"]),
        text: z.string(),
        at: time(),
        tool: z.object({ name: z.string(), arguments: z.unknown(), outcome: z.string(), result: z.string() }).optional(),
      }),
    ),
    results: z
      .object({
        criteria: z.array(judged.extend({ criterion: z.string() })),
        extractedData: z.record(z.string(), z.unknown()),
        toolExpectations: z.array(judged.extend({ tool: z.string() })),
      })
      .nullable()
      .openapi({ description: "Each criterion with the judge's reason, the extracted data, each tool expectation; null until judged." }),
    toolsCalled: z.array(z.object({ name: z.string(), arguments: z.unknown(), outcome: z.string() })),
    latency: z
      .object({
        turns: z.number().int().openapi({ description: "The agent's replies measured." }),
        averageMs: z.number().nullable(),
        p50Ms: z.number().nullable(),
        p95Ms: z.number().nullable(),
        maxMs: z.number().nullable(),
        totalMs: z.number(),
      })
      .nullable()
      .openapi({
        description:
          "The agent's replies: how many, and how long the caller waited for each. A chat or a replay: the whole turn, tool rounds included; a voice run: voice to voice, from the end of the caller's speech to the reply's first audio (the call's own trace).",
      }),
    costMicro: z
      .number()
      .int()
      .openapi({ description: "What the run's model calls cost (the agent's, the caller's, the judge's), in millionths of a credit." }),
    error: z.string().nullable().openapi({ description: "Why the run failed or errored, in words." }),
    startedAt: time().nullable(),
    finishedAt: time().nullable(),
    createdAt: time(),
  })
  .openapi("AgentTestRun");
export type TestRunView = z.infer<typeof testRunSchema>;

export const testRunPageSchema = pageSchema(testRunSchema, "AgentTestRunPage");
export const startedRunsSchema = z
  .object({ batchId: z.uuid().nullable(), data: z.array(testRunSchema) })
  .openapi("StartedAgentTestRuns", { description: "The runs queued; poll GET /v1/agents/{id}/test-runs/{runId} until each is final." });

export const runTestsSchema = z
  .strictObject({
    version: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: "The agent's version to play against; omitted: its live configuration." }),
    mode: z.enum(["chat", "voice"]).default("chat").openapi({
      description:
        "`chat` (text only, fast) or `voice`: a web call through the whole pipeline, the caller's lines spoken through text-to-speech and heard through the agent's speech-to-text; it reports voice-to-voice latency and counts against the workspace's calls in flight.",
    }),
  })
  .openapi("RunAgentTests", { example: { mode: "voice" } });

export const listRunsQuerySchema = z.strictObject({
  ...pageQuerySchema.shape,
  testId: z.uuid().optional().openapi({ description: "Only this test's runs." }),
  batchId: z.uuid().optional().openapi({ description: "Only the runs started together with this batch id." }),
  status: z.enum(TEST_RUN_STATUSES).optional(),
  mode: z.enum(TEST_RUN_MODES).optional().openapi({ description: "Only chat runs, only voice runs, or only replays." }),
});
export type ListRunsQuery = z.infer<typeof listRunsQuerySchema>;

const uuidParam = (name: string, what: string) =>
  z
    .uuid({ message: `${what} id must be a UUID` })
    .openapi({ param: { name, in: "path" }, example: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78" });
export const agentParam = z.object({ id: uuidParam("id", "Agent") });
export const testParams = z.object({ id: uuidParam("id", "Agent"), testId: uuidParam("testId", "Test") });
export const runParams = z.object({ id: uuidParam("id", "Agent"), runId: uuidParam("runId", "Run") });

export const startReplaySchema = z
  .strictObject({
    callId: z.uuid().optional().openapi({ description: "The call to replay (one of the agent's, of this workspace)." }),
    chatId: z.uuid().optional().openapi({ description: "The chat to replay (one of the agent's, of this workspace)." }),
    version: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: "The agent's version to replay against; omitted: its live version." }),
    criteria: criteriaSchema.optional().openapi({
      description:
        "What the replayed conversation is judged on; omitted: the success criteria of the agent's analysis plan (at that version).",
    }),
    mode: z.enum(["chat", "voice"]).default("chat").openapi({
      description:
        "`chat` (the caller turns said as text, fast) or `voice`: spoken through a web call, heard through the agent's speech-to-text, with voice-to-voice latency.",
    }),
  })
  .refine((b) => (b.callId === undefined) !== (b.chatId === undefined), { message: "Send exactly one of callId and chatId." })
  .openapi("StartAgentReplay", { example: { callId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b78", version: 3 } });
export type StartReplayInput = z.infer<typeof startReplaySchema>;
