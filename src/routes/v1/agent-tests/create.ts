import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentParam, agentTestSchema, createTestSchema } from "../../../agent-tests/schema";
import { createTest } from "../../../agent-tests/service";
import { toTestView } from "../../../agent-tests/views";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { TAG } from "./shared";

export const createAgentTestRoute = createRoute({
  method: "post",
  path: "/agents/{id}/tests",
  tags: TAG,
  operationId: "createAgentTest",
  summary: "Create a test of an agent",
  description:
    "A scenario (a simulated caller with a persona and a goal, or a fixed script of the caller's turns), the criteria the " +
    "conversation is judged by (the analysis plan's success criteria and extraction fields) and optional expectations on the " +
    "tools the agent calls. At most 50 tests an agent (409 past it). Run it with POST /v1/agents/{id}/tests/{testId}/runs.",
  security: bearerSecurity,
  request: { params: agentParam, ...jsonBody(createTestSchema) },
  responses: { 201: jsonResponse(agentTestSchema, "The test."), ...errorResponses(400, 404, 409) },
});

export const registerCreateAgentTest = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createAgentTestRoute, async (c) => {
    const { id } = c.req.valid("param");
    const test = await createTest({ ctx: c.var.ctx, input: { agentId: id, test: c.req.valid("json") } });
    c.header("Location", `/v1/agents/${id}/tests/${test.id}`);
    return c.json(toTestView(test), 201);
  });
