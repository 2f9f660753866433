// Agent tests and their runs as the API and the webhooks show them: one mapper each.
// `testRunEventData` is the data of test_run.completed.
import type { AgentTest, AgentTestRun } from "../db/schema";
import type { EventData } from "../webhooks/payload";
import type { AgentTestView, TestRunView } from "./schema";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toTestView = (row: AgentTest): AgentTestView => ({
  id: row.id,
  agentId: row.agentId,
  name: row.name,
  scenario:
    row.scenario.kind === "simulated"
      ? { ...row.scenario, maxTurns: row.scenario.maxTurns }
      : { kind: "script", turns: row.scenario.turns },
  criteria: row.criteria,
  toolExpectations: row.toolExpectations.map((e) => ({ ...e, called: e.called ?? true })),
  judgeModel: row.judgeModel,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const toRunView = (row: AgentTestRun, testName: string | null): TestRunView => ({
  id: row.id,
  testId: row.testId,
  testName,
  agentId: row.agentId,
  agentVersion: row.agentVersion,
  batchId: row.batchId,
  mode: row.mode,
  callId: row.callId,
  replay: row.source
    ? {
        source: { kind: row.source.kind, id: row.source.id },
        mode: row.source.voice ? "voice" : "chat",
        differingTurns: row.turns ? row.turns.filter((t) => t.differs).length : null,
        turns: row.turns,
      }
    : null,
  status: row.status,
  transcript: row.transcript.map((t) => ({
    role: t.role,
    text: t.text,
    at: t.at,
    ...(t.tool ? { tool: { name: t.tool.name, arguments: t.tool.arguments, outcome: t.tool.outcome, result: t.tool.result } } : {}),
  })),
  results: row.results,
  toolsCalled: row.toolsCalled,
  latency: row.latency ? { ...row.latency, p50Ms: row.latency.p50Ms ?? null, p95Ms: row.latency.p95Ms ?? null } : null,
  costMicro: row.costMicro,
  error: row.error,
  startedAt: iso(row.startedAt),
  finishedAt: iso(row.finishedAt),
  createdAt: row.createdAt.toISOString(),
});

/** test_run.completed's data: the run as GET /v1/agents/{id}/test-runs/{runId} shows it. */
export const testRunEventData = (row: AgentTestRun, testName: string | null): EventData => ({
  testRun: toRunView(row, testName),
  metadata: null,
});
