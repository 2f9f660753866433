import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { agentSchema, createAgentSchema } from "../../../agents/schema";
import { createAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";

export const createAgentRoute = createRoute({
  method: "post",
  path: "/agents",
  tags: ["Agents"],
  operationId: "createAgent",
  summary: "Create an agent",
  description: "Only `name` and `personaId` are required; every other field has a default (docs/agents.md). Unknown fields are refused.",
  security: bearerSecurity,
  request: jsonBody(createAgentSchema),
  responses: { 201: jsonResponse(agentSchema, "The created agent, with every default filled in."), ...errorResponses(400) },
});

export const registerCreateAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createAgentRoute, async (c) => {
    const saved = await createAgent({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/agents/${saved.agent.id}`);
    return c.json(toAgent(saved.agent, saved.toolSecret, true), 201);
  });
