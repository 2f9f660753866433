import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentParam, agentTestPageSchema } from "../../../agent-tests/schema";
import { listTests } from "../../../agent-tests/service";
import { toTestView } from "../../../agent-tests/views";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema } from "../../../lib/pagination";
import { TAG } from "./shared";

export const listAgentTestsRoute = createRoute({
  method: "get",
  path: "/agents/{id}/tests",
  tags: TAG,
  operationId: "listAgentTests",
  summary: "List an agent's tests",
  description: "Newest first. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { params: agentParam, query: pageQuerySchema },
  responses: { 200: jsonResponse(agentTestPageSchema, "A page of tests."), ...errorResponses(400, 404) },
});

export const registerListAgentTests = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listAgentTestsRoute, async (c) => {
    const page = await listTests({ ctx: c.var.ctx, input: { ...c.req.valid("query"), agentId: c.req.valid("param").id } });
    return c.json({ ...page, data: page.data.map(toTestView) }, 200);
  });
