// /v1/agents/{id}/tests and /v1/agents/{id}/test-runs: an agent's tests, their runs, and running
// them, and /v1/agents/{id}/replays (docs/agent-tests.md). POST …/tests/runs is registered before the routes with {testId}.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerCreateAgentTest } from "./create";
import { registerDeleteAgentTest } from "./delete";
import { registerGetAgentTest } from "./get";
import { registerGetAgentTestRun } from "./get-run";
import { registerListAgentTests } from "./list";
import { registerListAgentTestRuns } from "./list-runs";
import { registerReplayAgent } from "./replay";
import { registerRunAgentTests } from "./run-all";
import { registerRunAgentTest } from "./run-one";
import { registerUpdateAgentTest } from "./update";

export function registerAgentTests(app: OpenAPIHono<AppEnv>) {
  registerListAgentTests(app);
  registerCreateAgentTest(app);
  registerRunAgentTests(app);
  registerGetAgentTest(app);
  registerUpdateAgentTest(app);
  registerDeleteAgentTest(app);
  registerRunAgentTest(app);
  registerListAgentTestRuns(app);
  registerGetAgentTestRun(app);
  registerReplayAgent(app);
}
