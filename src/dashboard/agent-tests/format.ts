// The agent's Tests page, worded once for the page and for its script's JSON (live): the results
// matrix (rows the tests, columns the versions that have runs, each cell the newest run of that
// test at that version), the replays' statuses, and each run's status as a badge.

import type { RunWithTest } from "../../agent-tests/service";
import type { AgentTest, AgentTestRun } from "../../db/schema";
import type { Tone } from "../ui";

export const STATUS_TONES: Record<AgentTestRun["status"], Tone> = {
  queued: "off",
  running: "",
  passed: "good",
  failed: "bad",
  error: "bad",
};

/** Still to end: the page follows the runs while one is. */
export const isActive = (status: AgentTestRun["status"]) => status === "queued" || status === "running";

/** A column's key: the version number, or "none" for runs made before the agent kept versions. */
export const versionKey = (version: number | null) => (version === null ? "none" : String(version));
export const versionLabel = (version: number | null) => (version === null ? "Before versions" : `Version ${version}`);

export interface Cell {
  testId: string;
  version: string;
  runId: string;
  status: AgentTestRun["status"];
  tone: Tone;
}

export interface Matrix {
  /** Newest version first; null (runs before versions) last. */
  versions: Array<number | null>;
  /** By `testId:versionKey`. */
  cells: Map<string, Cell>;
  /** Each test's newest run, whatever its version. */
  last: Map<string, Cell & { agentVersion: number | null }>;
  active: boolean;
}

export const cellKey = (testId: string, version: string) => `${testId}:${version}`;

export function matrixOf(all: RunWithTest[]): Matrix {
  // A test's runs only: a replay (no test) has no row in the matrix.
  const runs = all.flatMap(({ run }) => (run.testId ? [{ run, testId: run.testId }] : []));
  const versions = [...new Set(runs.map(({ run }) => run.agentVersion))].sort((a, b) => (b ?? -1) - (a ?? -1));
  const cells = new Map<string, Cell>();
  const last = new Map<string, Cell & { agentVersion: number | null }>();
  for (const { run, testId } of runs) {
    const cell = {
      testId,
      version: versionKey(run.agentVersion),
      runId: run.id,
      status: run.status,
      tone: STATUS_TONES[run.status],
    };
    cells.set(cellKey(testId, cell.version), cell);
    const before = last.get(testId);
    // Run ids are time-ordered (UUIDv7): the greatest is the newest.
    if (!before || before.runId < run.id) last.set(testId, { ...cell, agentVersion: run.agentVersion });
  }
  return { versions, cells, last, active: runs.some(({ run }) => isActive(run.status)) };
}

/** A replay's status on the Tests page: its cell is `replay:<runId>`. */
export interface ReplayCell {
  runId: string;
  status: AgentTestRun["status"];
  tone: Tone;
}

export const replayCellOf = (run: Pick<AgentTestRun, "id" | "status">): ReplayCell => ({
  runId: run.id,
  status: run.status,
  tone: STATUS_TONES[run.status],
});

/** What GET …/tests/live answers: every cell, the newest replays', and whether a run or replay is still queued or running. */
export const liveOf = (tests: AgentTest[], matrix: Matrix, replays: ReplayCell[] = []) => ({
  active: matrix.active || replays.some((r) => isActive(r.status)),
  cells: [...matrix.cells.values()].filter((c) => tests.some((t) => t.id === c.testId)),
  replays,
});
export type Live = ReturnType<typeof liveOf>;

export const scenarioText = (test: AgentTest) =>
  test.scenario.kind === "script"
    ? `Script, ${test.scenario.turns.length} turn${test.scenario.turns.length === 1 ? "" : "s"}`
    : `Simulated caller, up to ${test.scenario.maxTurns} turns`;

export const criteriaCount = (test: AgentTest) =>
  test.criteria.successCriteria.length + test.criteria.extractionFields.length + test.toolExpectations.length;

/** A replay's differing turns in words: "2 of 10 turns differ"; null until it has played. */
export function differText(turns: ReadonlyArray<{ differs: boolean }> | null): string | null {
  if (!turns) return null;
  const n = turns.filter((t) => t.differs).length;
  return `${n} of ${turns.length} turn${turns.length === 1 ? "" : "s"} differ${n === 1 ? "s" : ""}`;
}
