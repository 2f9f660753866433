// Agent tests through the API (docs/agent-tests.md): an agent with tests, a run played to its end.
import { expect } from "vitest";
import { json, until, type Workspace } from "./harness";

const PERSONA = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";

export interface TestRunView {
  id: string;
  testId: string;
  testName: string | null;
  batchId: string | null;
  agentVersion: number | null;
  mode: "chat" | "voice" | "replay";
  callId: string | null;
  status: "queued" | "running" | "passed" | "failed" | "error";
  transcript: Array<{ role: string; text: string; tool?: { name: string; arguments: unknown; outcome: string } }>;
  results: {
    criteria: Array<{ criterion: string; passed: boolean; reason: string }>;
    extractedData: Record<string, unknown>;
    toolExpectations: Array<{ tool: string; passed: boolean; reason: string }>;
  } | null;
  toolsCalled: Array<{ name: string; arguments: unknown; outcome: string }>;
  latency: {
    turns: number;
    averageMs: number | null;
    p50Ms: number | null;
    p95Ms: number | null;
    maxMs: number | null;
    totalMs: number;
  } | null;
  costMicro: number;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export const FINAL = ["passed", "failed", "error"];

/** An agent of the workspace (the sandbox's chat model echoes what it is told: "You said: …"). */
export async function testAgent(ws: Workspace, body: Record<string, unknown> = {}): Promise<{ id: string; toolSecret: string }> {
  const res = await ws.api("/v1/agents", { method: "POST", json: { name: "Tested agent", personaId: PERSONA, ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

export async function createTest(ws: Workspace, agentId: string, body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await ws.api(`/v1/agents/${agentId}/tests`, { method: "POST", json: { name: "A test", ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}

/** A scripted test that passes on the sandbox (the agent echoes the caller's words back). */
export const scriptedTest = (words = "Where is my order 7?") => ({
  scenario: { kind: "script", turns: [words] },
  criteria: { successCriteria: [`The agent says "${words.replace(/[?!.]$/, "")}"`], extractionFields: [] },
});

/** POST …/runs answered 202: the runs queued. */
export async function startRun(ws: Workspace, agentId: string, testId?: string, body?: unknown) {
  const path = testId ? `/v1/agents/${agentId}/tests/${testId}/runs` : `/v1/agents/${agentId}/tests/runs`;
  const res = await ws.api(path, { method: "POST", ...(body === undefined ? {} : { json: body }) });
  expect(res.status, await res.clone().text()).toBe(202);
  return json<{ batchId: string | null; data: TestRunView[] }>(res);
}

export const getRun = async (ws: Workspace, agentId: string, runId: string) =>
  json<TestRunView>(await ws.api(`/v1/agents/${agentId}/test-runs/${runId}`));

/** The run once it is final (polled). */
export async function finalRun(ws: Workspace, agentId: string, runId: string): Promise<TestRunView> {
  let run: TestRunView | null = null;
  await expect
    .poll(async () => {
      run = await getRun(ws, agentId, runId);
      return FINAL.includes(run.status);
    })
    .toBe(true);
  return run as unknown as TestRunView;
}

/**
 * A voice run once it is final (it plays in real time: lines said, replies heard), read every 250 ms
 * for up to `ms`; the last read otherwise. Without expect.poll, so concurrent tests may use it.
 */
export const finalVoiceRun = (ws: Workspace, agentId: string, runId: string, ms = 90_000): Promise<TestRunView> =>
  until(
    () => getRun(ws, agentId, runId),
    (run) => FINAL.includes(run.status),
    ms,
  );

/** Runs a test and waits for its end. */
export async function runToEnd(ws: Workspace, agentId: string, testId: string): Promise<TestRunView> {
  const { data } = await startRun(ws, agentId, testId);
  return finalRun(ws, agentId, (data[0] as TestRunView).id);
}
