// A test-only entry: the app's own worker (src/worker.ts, its Durable Object classes re-exported,
// as wrangler.toml binds them) plus one route that wakes an agent tests' runner by name with run
// ids, through the same stub the run POSTs use (src/agent-tests/runner/stub.ts). It lets a test
// wake a runner with runs no request started, and wake it twice with the same runs. Never deployed;
// started by test/integration/agent-tests/runner.test.ts.
import { testRunnerStub, testRunnersOf } from "../../src/agent-tests/runner/stub";
import type { Bindings } from "../../src/env";
import worker from "../../src/worker";

export { TestRunner } from "../../src/agent-tests/runner/durable-object";
export { CallSession } from "../../src/calls/durable-object";
export { CampaignRunner } from "../../src/campaigns/runner/durable-object";

/** The route that wakes a runner: POST {"name", "runIds"}, answered 204 once the runner holds them. */
const WAKE_PATH = "/__test/wake-test-runner";

export default {
  ...worker,
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== WAKE_PATH) return worker.fetch(request, env, ctx);
    const { name, runIds } = (await request.json()) as { name: string; runIds: string[] };
    await testRunnerStub(testRunnersOf({ testRunners: env.TEST_RUNNERS }), name).wake(runIds);
    return new Response(null, { status: 204 });
  },
} satisfies ExportedHandler<Bindings>;
