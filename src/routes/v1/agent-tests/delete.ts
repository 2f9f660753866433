import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { testParams } from "../../../agent-tests/schema";
import { deleteTest } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses } from "../../../lib/openapi";
import { TAG } from "./shared";

export const deleteAgentTestRoute = createRoute({
  method: "delete",
  path: "/agents/{id}/tests/{testId}",
  tags: TAG,
  operationId: "deleteAgentTest",
  summary: "Delete a test and its runs",
  security: bearerSecurity,
  request: { params: testParams },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404) },
});

export const registerDeleteAgentTest = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteAgentTestRoute, async (c) => {
    const { id, testId } = c.req.valid("param");
    await deleteTest({ ctx: c.var.ctx, input: { agentId: id, id: testId } });
    return c.body(null, 204);
  });
