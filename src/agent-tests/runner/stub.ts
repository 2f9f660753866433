// How the worker reaches a batch's test runner (./durable-object.ts): one Durable Object per batch
// of runs (named by the batch's id, or by the run's for a single run or a replay), reached by
// typed RPC. Waking it stores the run ids and sets its alarm for now; the runs play in the alarm,
// never in the caller's request (docs/agent-tests.md, "Background work and limits").
import { ApiError } from "../../lib/errors";
import type { Op } from "../../services";

/** What the runner answers by RPC (./durable-object.ts implements it). */
export interface TestRunnerRpc {
  wake(runIds: string[], origin?: string): Promise<void>;
}

export function testRunnerStub(ns: DurableObjectNamespace, name: string): TestRunnerRpc {
  return ns.get(ns.idFromName(name)) as unknown as TestRunnerRpc;
}

/** The namespace of the test runners, or the error that says what to fix. */
export function testRunnersOf(ctx: { testRunners?: DurableObjectNamespace }): DurableObjectNamespace {
  if (!ctx.testRunners) throw new ApiError("misconfigured", "The TEST_RUNNERS Durable Object binding is missing (wrangler.toml).");
  return ctx.testRunners;
}

/**
 * Hands queued runs to the runner named `name`: it plays them as soon as it can, RUNS_AT_ONCE at a
 * time, and wakes itself until each is final. The public origin is kept for a voice run's call
 * when the deployment has no PUBLIC_BASE_URL.
 */
export async function wakeRuns({
  ctx,
  input: { name, runIds },
}: Op<{ name: string; runIds: string[] }, "testRunners" | "publicOrigin">): Promise<void> {
  await testRunnerStub(testRunnersOf(ctx), name).wake(runIds, ctx.publicOrigin || undefined);
}
