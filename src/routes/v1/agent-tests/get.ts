import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentTestSchema, testParams } from "../../../agent-tests/schema";
import { getTest } from "../../../agent-tests/service";
import { toTestView } from "../../../agent-tests/views";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const getAgentTestRoute = createRoute({
  method: "get",
  path: "/agents/{id}/tests/{testId}",
  tags: TAG,
  operationId: "getAgentTest",
  summary: "Get a test",
  security: bearerSecurity,
  request: { params: testParams },
  responses: { 200: jsonResponse(agentTestSchema, "The test."), ...errorResponses(400, 404) },
});

export const registerGetAgentTest = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getAgentTestRoute, async (c) => {
    const { id, testId } = c.req.valid("param");
    return c.json(toTestView(await getTest({ ctx: c.var.ctx, input: { agentId: id, id: testId } })), 200);
  });
