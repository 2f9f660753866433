import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { runTestsSchema, startedRunsSchema, testParams } from "../../../agent-tests/schema";
import { startRuns } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shownRun, TAG } from "./shared";

export const runAgentTestRoute = createRoute({
  method: "post",
  path: "/agents/{id}/tests/{testId}/runs",
  tags: TAG,
  operationId: "runAgentTest",
  summary: "Run a test",
  description:
    "Queues a run of the test and answers 202 at once; the run plays in the background: the scenario against the agent " +
    "(its tools called for real), as a chat (`mode: chat`, the default) or as a web call through the whole voice pipeline " +
    "(`mode: voice`), then the judge. Poll GET /v1/agents/{id}/test-runs/{runId}, or listen for `test_run.completed`. 429 " +
    "`test_runs_limit` when the workspace has too many runs queued or running.",
  security: bearerSecurity,
  request: {
    params: testParams,
    body: { required: false, content: { "application/json": { schema: runTestsSchema } } },
  },
  responses: { 202: jsonResponse(startedRunsSchema, "The run, queued."), ...errorResponses(400, 404, 429) },
});

export const registerRunAgentTest = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(runAgentTestRoute, async (c) => {
    const { id, testId } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    const started = await startRuns({ ctx: c.var.ctx, input: { agentId: id, testId, version: body.version, mode: body.mode } });
    return c.json({ batchId: started.batchId, data: started.runs.map(shownRun) }, 202);
  });
