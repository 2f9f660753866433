import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { runParams, testRunSchema } from "../../../agent-tests/schema";
import { getRun } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shownRun, TAG } from "./shared";

export const getAgentTestRunRoute = createRoute({
  method: "get",
  path: "/agents/{id}/test-runs/{runId}",
  tags: TAG,
  operationId: "getAgentTestRun",
  summary: "Get a test run",
  description: "Its status, transcript, each criterion with the judge's reason, the tools called, latency and cost.",
  security: bearerSecurity,
  request: { params: runParams },
  responses: { 200: jsonResponse(testRunSchema, "The run."), ...errorResponses(400, 404) },
});

export const registerGetAgentTestRun = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getAgentTestRunRoute, async (c) => {
    const { id, runId } = c.req.valid("param");
    return c.json(shownRun(await getRun({ ctx: c.var.ctx, input: { agentId: id, id: runId } })), 200);
  });
