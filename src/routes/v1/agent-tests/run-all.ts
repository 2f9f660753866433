import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentParam, runTestsSchema, startedRunsSchema } from "../../../agent-tests/schema";
import { startRuns } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shownRun, TAG } from "./shared";

export const runAgentTestsRoute = createRoute({
  method: "post",
  path: "/agents/{id}/tests/runs",
  tags: TAG,
  operationId: "runAgentTests",
  summary: "Run all of an agent's tests",
  description:
    "Queues a run of each of the agent's tests, sharing a `batchId`, as chats or voice calls (`mode`), and answers 202 at " +
    "once; they play in the background, five at a time. Read them with GET /v1/agents/{id}/test-runs?batchId=…. 400 when the agent has no tests; 429 " +
    "`test_runs_limit` when the workspace would have too many runs queued or running.",
  security: bearerSecurity,
  request: {
    params: agentParam,
    body: { required: false, content: { "application/json": { schema: runTestsSchema } } },
  },
  responses: { 202: jsonResponse(startedRunsSchema, "The runs, queued."), ...errorResponses(400, 404, 429) },
});

export const registerRunAgentTests = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(runAgentTestsRoute, async (c) => {
    const body = c.req.valid("json") ?? {};
    const started = await startRuns({
      ctx: c.var.ctx,
      input: { agentId: c.req.valid("param").id, version: body.version, mode: body.mode },
    });
    return c.json({ batchId: started.batchId, data: started.runs.map(shownRun) }, 202);
  });
