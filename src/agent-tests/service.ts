// Agent tests and their runs (docs/agent-tests.md). Each operation takes one `{ ctx, input }`
// (src/services.ts). Runs are queued here, within the workspace's limit, and handed to a test
// runner (runner/: a Durable Object per batch, which plays them in its alarm, a few at once);
// each final run fires test_run.completed.
import type { AgentTest, AgentTestRun, ReplaySource, TestCriteria, ToolExpectation } from "../db/schema";
import { ApiError } from "../lib/errors";
import { isUuid, newId } from "../lib/ids";
import type { Page, PageParams } from "../lib/pagination";
import type { DomainContext, Op, RequestContext } from "../services";
import { emit } from "../webhooks/deliver";
import { agentNotFound, configForRun } from "./config";
import { executeRun } from "./execute";
import {
  countTests,
  deleteTestRow,
  findRun,
  findTest,
  findTestById,
  finishRun,
  insertTest,
  newestRunsByVersion,
  pageOfRuns,
  pageOfTests,
  queueReplay,
  queueRuns,
  type RunWithTest,
  sourceTranscript,
  staleRunIds,
  testsOfAgent,
  updateTestRow,
} from "./queries";
import { MAX_REPLAY_TURNS, recordedTurns } from "./replay";
import { testRunnersOf, wakeRuns } from "./runner/stub";
import { type CreateTestInput, type ListRunsQuery, MAX_TESTS_PER_AGENT, type UpdateTestInput } from "./schema";
import { testRunEventData } from "./views";

export type { RunWithTest };

/** Runs of one batch played at once by its runner (the others wait their turn). */
export const RUNS_AT_ONCE = 5;
/** Runs a workspace may have queued or running at once. */
export const MAX_ACTIVE_RUNS = 50;
/** A run still queued or running this long after it was queued lost its worker: the cron run ends it. */
export const STALE_RUN_MS = 10 * 60_000;

export const testNotFound = () => new ApiError("not_found", "No test with that id for this agent.");
export const runNotFound = () => new ApiError("not_found", "No test run with that id for this agent.");

type TestCtx = Op<unknown, "db" | "organizationId">["ctx"];

/** The agent's id when the agent is the workspace's; 404 otherwise. */
async function requireAgent(ctx: TestCtx, agentId: string): Promise<string> {
  await configForRun(ctx, agentId);
  return agentId;
}

async function requireTest(ctx: TestCtx, agentId: string, id: string): Promise<AgentTest> {
  const row = isUuid(agentId) && isUuid(id) ? await findTest(ctx.db, ctx.organizationId, agentId, id) : undefined;
  if (!row) {
    await requireAgent(ctx, agentId);
    throw testNotFound();
  }
  return row;
}

const expectations = (list: CreateTestInput["toolExpectations"]): ToolExpectation[] =>
  list.map((e) => ({ tool: e.tool, called: e.called, ...(e.arguments ? { arguments: e.arguments } : {}) }));

export async function createTest({ ctx, input }: Op<{ agentId: string; test: CreateTestInput }>): Promise<AgentTest> {
  await requireAgent(ctx, input.agentId);
  if ((await countTests(ctx.db, input.agentId)) >= MAX_TESTS_PER_AGENT)
    throw new ApiError("conflict", `The agent has ${MAX_TESTS_PER_AGENT} tests, the most it may have: delete one first.`);
  const { test } = input;
  return insertTest(ctx.db, ctx.organizationId, input.agentId, {
    name: test.name,
    scenario: test.scenario,
    criteria: test.criteria,
    toolExpectations: expectations(test.toolExpectations),
    judgeModel: test.judgeModel,
  });
}

export const getTest = ({ ctx, input }: Op<{ agentId: string; id: string }>): Promise<AgentTest> =>
  requireTest(ctx, input.agentId, input.id);

export async function listTests({ ctx, input }: Op<PageParams & { agentId: string }>): Promise<Page<AgentTest>> {
  await requireAgent(ctx, input.agentId);
  return pageOfTests(ctx.db, ctx.organizationId, input.agentId, input);
}

export async function updateTest({ ctx, input }: Op<{ agentId: string; id: string; patch: UpdateTestInput }>): Promise<AgentTest> {
  await requireTest(ctx, input.agentId, input.id);
  const { toolExpectations, ...rest } = input.patch;
  const row = await updateTestRow(ctx.db, ctx.organizationId, input.agentId, input.id, {
    ...rest,
    ...(toolExpectations ? { toolExpectations: expectations(toolExpectations) } : {}),
  });
  if (!row) throw testNotFound();
  return row;
}

/** Deletes the test and its runs. */
export async function deleteTest({ ctx, input }: Op<{ agentId: string; id: string }>): Promise<void> {
  await requireTest(ctx, input.agentId, input.id);
  if (!(await deleteTestRow(ctx.db, ctx.organizationId, input.agentId, input.id))) throw testNotFound();
}

export interface StartedRuns {
  batchId: string | null;
  runs: RunWithTest[];
}

/** What playing runs needs: the test runner's context (a voice run places its call through it), or the cron run's. */
type RunCtx = Pick<DomainContext, "db" | "config" | "providers" | "waitUntil" | "origin"> &
  Partial<Pick<RequestContext, "callSessions" | "publicOrigin">>;

/**
 * Queues a run of each test (all the agent's when `testId` is not given), as a chat or as a voice
 * call (`mode`, default chat), refusing with 429 when the workspace would have more than
 * MAX_ACTIVE_RUNS queued or running, and hands them to a runner of their own, which plays them
 * RUNS_AT_ONCE at a time after the answer.
 */
export async function startRuns({
  ctx,
  input,
}: Op<
  { agentId: string; testId?: string; version?: number; mode?: "chat" | "voice" },
  "db" | "organizationId" | "testRunners" | "publicOrigin"
>): Promise<StartedRuns> {
  testRunnersOf(ctx); // 503 misconfigured before anything is queued
  const agent = await configForRun(ctx, input.agentId, input.version);
  const version = input.version ?? agent.liveVersion;
  const tests = input.testId
    ? [await requireTest(ctx, input.agentId, input.testId)]
    : await testsOfAgent(ctx.db, ctx.organizationId, input.agentId);
  if (tests.length === 0) throw new ApiError("bad_request", "The agent has no tests: create one with POST /v1/agents/{id}/tests first.");
  const batchId = input.testId ? null : newId();
  const runs = await queueRuns(ctx.db, ctx.organizationId, input.agentId, tests, version, batchId, input.mode ?? "chat", MAX_ACTIVE_RUNS);
  if (runs.length === 0)
    throw new ApiError(
      "test_runs_limit",
      `The workspace has as many test runs queued or running as it may (${MAX_ACTIVE_RUNS}, these ${tests.length} included): wait for some to finish.`,
    );
  const runIds = runs.map((r) => r.id);
  await wakeRuns({ ctx, input: { name: batchId ?? (runIds[0] as string), runIds } });
  const names = new Map(tests.map((t) => [t.id, t.name]));
  return { batchId, runs: runs.map((run) => ({ run, testName: (run.testId && names.get(run.testId)) ?? null })) };
}

export const sourceNotFound = (kind: ReplaySource["kind"]) =>
  new ApiError("not_found", `No ${kind} with that id of this agent in this workspace.`);

/**
 * Queues a replay of the agent's call or chat against `version` (default: the live one), as text or
 * through the voice pipeline (`mode`), judged on `criteria` (default: the agent's analysis plan's
 * success criteria at that version), and hands it to a runner of its own. 404 when the call or chat is not
 * the workspace's or not this agent's.
 */
export async function startReplay({
  ctx,
  input,
}: Op<
  { agentId: string; source: ReplaySource; version?: number; criteria?: TestCriteria; mode?: "chat" | "voice" },
  "db" | "organizationId" | "testRunners" | "publicOrigin"
>): Promise<RunWithTest> {
  testRunnersOf(ctx); // 503 misconfigured before anything is queued
  const agent = await configForRun(ctx, input.agentId, input.version);
  const transcript = await sourceTranscript(ctx.db, ctx.organizationId, input.agentId, input.source);
  if (!transcript) throw sourceNotFound(input.source.kind);
  const turns = recordedTurns(transcript).length;
  if (turns === 0) throw new ApiError("bad_request", `The ${input.source.kind} has no caller turns to replay.`);
  if (turns > MAX_REPLAY_TURNS)
    throw new ApiError("bad_request", `The ${input.source.kind} has ${turns} caller turns; a replay takes at most ${MAX_REPLAY_TURNS}.`);
  const criteria = input.criteria ?? { successCriteria: agent.analysisPlan.successCriteria, extractionFields: [] };
  const run = await queueReplay(
    ctx.db,
    ctx.organizationId,
    {
      agentId: input.agentId,
      agentVersion: input.version ?? agent.liveVersion,
      source: input.mode === "voice" ? { kind: input.source.kind, id: input.source.id, voice: true } : input.source,
      criteria,
    },
    MAX_ACTIVE_RUNS,
  );
  if (!run)
    throw new ApiError(
      "test_runs_limit",
      `The workspace has as many test runs queued or running as it may (${MAX_ACTIVE_RUNS}): wait for some to finish.`,
    );
  await wakeRuns({ ctx, input: { name: run.id, runIds: [run.id] } });
  return { run, testName: null };
}

/** Plays each queued run, `RUNS_AT_ONCE` at a time, each final one announced (a run not queued is left alone). */
export async function playRuns(ctx: RunCtx, ids: string[]): Promise<void> {
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const row = await executeRun(ctx, id);
      if (row) await announce(ctx, row);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RUNS_AT_ONCE, ids.length) }, worker));
}

async function announce(ctx: RunCtx, row: AgentTestRun): Promise<void> {
  const test = row.testId ? await findTestById(ctx.db, row.testId) : undefined;
  await emit(ctx, {
    organizationId: row.organizationId,
    event: "test_run.completed",
    data: testRunEventData(row, test?.name ?? null),
    subjectId: row.id,
  });
}

export async function getRun({ ctx, input }: Op<{ agentId: string; id: string }>): Promise<RunWithTest> {
  const row = isUuid(input.agentId) && isUuid(input.id) ? await findRun(ctx.db, ctx.organizationId, input.agentId, input.id) : undefined;
  if (!row) {
    await requireAgent(ctx, input.agentId);
    throw runNotFound();
  }
  return row;
}

export async function listRuns({ ctx, input }: Op<ListRunsQuery & { agentId: string }>): Promise<Page<RunWithTest>> {
  await requireAgent(ctx, input.agentId);
  return pageOfRuns(ctx.db, ctx.organizationId, input.agentId, input);
}

/** The newest run of each test at each version it ran against (any order): the dashboard's matrix. */
export async function newestRuns({ ctx, input }: Op<{ agentId: string }>): Promise<RunWithTest[]> {
  await requireAgent(ctx, input.agentId);
  return newestRunsByVersion(ctx.db, ctx.organizationId, input.agentId);
}

/** The cron run's sweep: runs whose worker died end as `error` (and are announced). Returns how many. */
export async function endStaleRuns(ctx: RunCtx, now = Date.now()): Promise<number> {
  let ended = 0;
  for (const id of await staleRunIds(ctx.db, new Date(now - STALE_RUN_MS), 100)) {
    const row = await finishRun(ctx.db, id, {
      status: "error",
      transcript: [],
      results: null,
      toolsCalled: [],
      latency: null,
      error: "The run was interrupted before it finished (its worker stopped); run it again.",
    });
    if (row) {
      ended++;
      await announce(ctx, row);
    }
  }
  return ended;
}

export { agentNotFound };
