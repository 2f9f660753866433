import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentParam, listRunsQuerySchema, testRunPageSchema } from "../../../agent-tests/schema";
import { listRuns } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shownRun, TAG } from "./shared";

export const listAgentTestRunsRoute = createRoute({
  method: "get",
  path: "/agents/{id}/test-runs",
  tags: TAG,
  operationId: "listAgentTestRuns",
  summary: "List an agent's test runs",
  description: "Newest first; `testId`, `batchId` and `status` filter. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { params: agentParam, query: listRunsQuerySchema },
  responses: { 200: jsonResponse(testRunPageSchema, "A page of runs."), ...errorResponses(400, 404) },
});

export const registerListAgentTestRuns = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listAgentTestRunsRoute, async (c) => {
    const page = await listRuns({ ctx: c.var.ctx, input: { ...c.req.valid("query"), agentId: c.req.valid("param").id } });
    return c.json({ ...page, data: page.data.map(shownRun) }, 200);
  });
