import { bigint, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { calls } from "./calls";
import type { ChatTurn } from "./chats";
import { organizations } from "./organizations";
import { id, timestamps } from "./util";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });

/**
 * What the agent is tested with (docs/agent-tests.md): a simulated caller (an LLM given a persona
 * and a goal, which says `[END]` when it is done), or a fixed script of the caller's turns.
 */
export type TestScenario =
  | { kind: "simulated"; persona: string; goal: string; firstMessage?: string; maxTurns: number }
  | { kind: "script"; turns: string[] };

/** How the conversation is judged: the analysis plan's success criteria and extraction fields (src/agents/schema.ts). */
export interface TestCriteria {
  successCriteria: string[];
  extractionFields: Array<{ name: string; type: "string" | "number" | "boolean" | "enum"; description: string; choices?: string[] }>;
}

/** A tool the agent must call (at least `minCalls` times, default 1), with arguments matching `arguments` if given. */
export interface ToolExpectation {
  tool: string;
  /** Argument name → the value it must equal, or `{contains: "…"}` for a string that must contain it (case-insensitive). */
  arguments?: Record<string, unknown>;
  /** false: the tool must NOT be called. */
  called?: boolean;
}

export const agentTests = pgTable(
  "agent_tests",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    scenario: jsonb("scenario").$type<TestScenario>().notNull(),
    criteria: jsonb("criteria").$type<TestCriteria>().notNull(),
    toolExpectations: jsonb("tool_expectations").$type<ToolExpectation[]>().notNull().default([]),
    /** The model that judges (and plays the simulated caller); null: the deployment's default chat model. */
    judgeModel: text("judge_model"),
    ...timestamps,
  },
  (t) => [index("agent_tests_agent_idx").on(t.agentId, t.id), index("agent_tests_org_idx").on(t.organizationId, t.id)],
);

export type AgentTest = typeof agentTests.$inferSelect;

export const TEST_RUN_STATUSES = ["queued", "running", "passed", "failed", "error"] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];

/** One criterion judged, one field extracted, one tool expectation checked. */
export interface TestRunResults {
  criteria: Array<{ criterion: string; passed: boolean; reason: string }>;
  extractedData: Record<string, unknown>;
  toolExpectations: Array<{ tool: string; passed: boolean; reason: string }>;
}

/**
 * Per agent reply: how long the caller waited. A chat or a replay: the whole turn, with its tool
 * rounds; a voice run: voice-to-voice, from the call's own trace (the caller's speech ending to the
 * reply's first audio). `p50Ms` and `p95Ms` are absent on runs stored before they were kept.
 */
export interface TestRunLatency {
  turns: number;
  averageMs: number | null;
  maxMs: number | null;
  totalMs: number;
  p50Ms?: number | null;
  p95Ms?: number | null;
}

/** How a run plays: a test's scenario as a chat or as a voice call, or a past conversation replayed. */
export const TEST_RUN_MODES = ["chat", "voice", "replay"] as const;
export type TestRunMode = (typeof TEST_RUN_MODES)[number];

/** Where a replay's caller turns come from: a past call or chat of the agent (docs/agent-tests.md, "Replay"). */
export interface ReplaySource {
  kind: "call" | "chat";
  id: string;
  /** Replayed through the voice pipeline (a web call, the caller turns spoken): docs/agent-tests.md, "Replay". */
  voice?: boolean;
}

/** One caller turn of a replay: what the agent said to it then (`recorded`) and now (`replayed`, null when not reached). */
export interface ReplayTurn {
  index: number;
  caller: string;
  recorded: string;
  replayed: string | null;
  differs: boolean;
}

export const agentTestRuns = pgTable(
  "agent_test_runs",
  {
    id: id(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The test run; null for a replay (mode `replay`), which has no test. */
    testId: uuid("test_id").references(() => agentTests.id, { onDelete: "cascade" }),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    /** The agent's version the run played against; null: its configuration at the time (before versions). */
    agentVersion: integer("agent_version"),
    /** Runs started together (POST …/tests/runs) share it. */
    batchId: uuid("batch_id"),
    mode: text("mode").$type<TestRunMode>().notNull().default("chat"),
    /** Voice runs: the web call the run placed (its recording, transcript and trace); null until placed, and for other modes. */
    callId: uuid("call_id").references(() => calls.id, { onDelete: "set null" }),
    /** Replays: the call or chat replayed, the criteria judged (a test run's are its test's), each caller turn compared. */
    source: jsonb("source").$type<ReplaySource | null>(),
    criteria: jsonb("criteria").$type<TestCriteria | null>(),
    turns: jsonb("turns").$type<ReplayTurn[] | null>(),
    status: text("status").$type<TestRunStatus>().notNull().default("queued"),
    transcript: jsonb("transcript").$type<ChatTurn[]>().notNull().default([]),
    results: jsonb("results").$type<TestRunResults | null>(),
    toolsCalled: jsonb("tools_called").$type<Array<{ name: string; arguments: unknown; outcome: string }>>().notNull().default([]),
    latency: jsonb("latency").$type<TestRunLatency | null>(),
    costMicro: bigint("cost_micro", { mode: "number" }).notNull().default(0),
    /** Why it failed or errored, for people. */
    error: text("error"),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    ...timestamps,
  },
  (t) => [
    index("agent_test_runs_org_idx").on(t.organizationId, t.id),
    index("agent_test_runs_agent_idx").on(t.agentId, t.id),
    index("agent_test_runs_test_idx").on(t.testId, t.id),
  ],
);

export type AgentTestRun = typeof agentTestRuns.$inferSelect;
