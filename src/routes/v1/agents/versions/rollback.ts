import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../../agents/mapper";
import { agentSchema } from "../../../../agents/schema";
import { rollbackAgent } from "../../../../agents/versions";
import { rollbackAgentSchema } from "../../../../agents/versions-schema";
import type { AppEnv } from "../../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../../lib/openapi";

export const rollbackAgentRoute = createRoute({
  method: "post",
  path: "/agents/{id}/rollback",
  tags: ["Agents"],
  operationId: "rollbackAgent",
  summary: "Roll an agent back to an earlier version",
  description: "The version's configuration becomes a new version, live at once: history only grows (from 3, rolling back to 2 makes 4).",
  security: bearerSecurity,
  request: { params: idParam("Agent"), ...jsonBody(rollbackAgentSchema) },
  responses: { 200: jsonResponse(agentSchema, "The agent, live at the new version."), ...errorResponses(400, 404) },
});

export const registerRollbackAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(rollbackAgentRoute, async (c) => {
    const saved = await rollbackAgent({
      ctx: c.var.ctx,
      input: { agentId: c.req.valid("param").id, version: c.req.valid("json").version },
    });
    return c.json(toAgent(saved.agent, saved.toolSecret), 200);
  });
