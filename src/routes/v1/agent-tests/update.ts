import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentTestSchema, testParams, updateTestSchema } from "../../../agent-tests/schema";
import { updateTest } from "../../../agent-tests/service";
import { toTestView } from "../../../agent-tests/views";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const updateAgentTestRoute = createRoute({
  method: "patch",
  path: "/agents/{id}/tests/{testId}",
  tags: TAG,
  operationId: "updateAgentTest",
  summary: "Change a test",
  description:
    "The fields sent replace the test's (a scenario or the criteria as a whole); the others are kept. Past runs keep what they ran.",
  security: bearerSecurity,
  request: { params: testParams, ...jsonBody(updateTestSchema) },
  responses: { 200: jsonResponse(agentTestSchema, "The test as changed."), ...errorResponses(400, 404) },
});

export const registerUpdateAgentTest = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateAgentTestRoute, async (c) => {
    const { id, testId } = c.req.valid("param");
    const test = await updateTest({ ctx: c.var.ctx, input: { agentId: id, id: testId, patch: c.req.valid("json") } });
    return c.json(toTestView(test), 200);
  });
