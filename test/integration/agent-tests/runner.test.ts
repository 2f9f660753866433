// The agent tests' runner (docs/agent-tests.md, "Background work and limits"): a Durable Object per
// batch that plays the runs handed to it in its alarm. Here a worker with one more route
// (test/support/test-runner-worker.ts) wakes a runner directly with runs written straight into the
// table as the run POST queues them: no request is left holding them, the runner alone plays them;
// woken twice at once with the same runs, and again once they are final, it plays each run once.
import { fileURLToPath } from "node:url";
import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type WorkerProcess } from "../../../dev/stack";
import { queueRuns } from "../../../src/agent-tests/queries";
import { agentTestRuns, usageEvents } from "../../../src/db/schema";
import { newId } from "../../../src/lib/ids";
import { createTest, scriptedTest, testAgent } from "../../support/agent-tests";
import { createWorkspace, stack, testDb } from "../../support/harness";

/** test/support/test-runner-worker.ts's route (not imported: that file is the worker's, for workerd). */
const WAKE_PATH = "/__test/wake-test-runner";
let worker: WorkerProcess;

beforeAll(async () => {
  worker = await startWorker(stack().vars, {
    script: fileURLToPath(new URL("../../support/test-runner-worker.ts", import.meta.url)),
    name: "test-runner-worker",
  });
}, 180_000);

afterAll(async () => {
  await worker?.stop();
});

async function wake(name: string, runIds: string[]): Promise<void> {
  const res = await fetch(`${worker.baseUrl}${WAKE_PATH}`, { method: "POST", body: JSON.stringify({ name, runIds }) });
  expect(res.status, await res.text()).toBe(204);
}

const runsOf = (ids: string[]) => testDb().select().from(agentTestRuns).where(inArray(agentTestRuns.id, ids));

describe("a test runner", () => {
  it("plays runs no request holds, more than five of them; woken twice at once and again after, it plays each run once", async () => {
    const ws = await createWorkspace();
    const agent = await testAgent(ws);
    const tests = await Promise.all(Array.from({ length: 7 }, () => createTest(ws, agent.id, scriptedTest())));
    const batchId = newId();
    const runs = await queueRuns(testDb(), ws.organizationId, agent.id, tests, null, batchId, "chat", 50);
    const ids = runs.map((r) => r.id);
    expect(ids).toHaveLength(7);

    await Promise.all([wake(batchId, ids), wake(batchId, ids)]);
    await expect.poll(async () => (await runsOf(ids)).filter((r) => r.status === "passed").length, { timeout: 60_000 }).toBe(7);
    const started = new Map((await runsOf(ids)).map((r) => [r.id, r.startedAt?.getTime()]));

    // Woken again once they are final, with one more run last in its queue: that run plays, and by
    // the time it is final the runner has taken every run before it (it plays them in order).
    const [later] = await queueRuns(testDb(), ws.organizationId, agent.id, [tests[0] as { id: string }], null, batchId, "chat", 50);
    const laterId = (later as { id: string }).id;
    await wake(batchId, [...ids, laterId]);
    await expect.poll(async () => (await runsOf([laterId]))[0]?.status, { timeout: 60_000 }).toBe("passed");

    // Each run played once: started once, its agent reply and its judge (two model calls) logged under it, none more.
    const all = [...ids, laterId];
    const usage = await testDb().select({ chatId: usageEvents.chatId }).from(usageEvents).where(inArray(usageEvents.chatId, all));
    expect(all.map((id) => usage.filter((u) => u.chatId === id).length)).toEqual(all.map(() => 2));
    for (const run of await runsOf(ids)) {
      expect(run.startedAt?.getTime(), run.id).toBe(started.get(run.id));
      expect(
        run.transcript.map((t) => t.role),
        run.id,
      ).toEqual(["user", "agent"]);
      expect(run.costMicro, run.id).toBeGreaterThan(0);
    }
  }, 120_000);
});
