import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { agentSchema } from "../../../agents/schema";
import { getAgent, withToolSecret } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";

export const getAgentRoute = createRoute({
  method: "get",
  path: "/agents/{id}",
  readsAlongsideTheKeyCheck: true,
  tags: ["Agents"],
  operationId: "getAgent",
  summary: "Fetch an agent",
  security: bearerSecurity,
  request: { params: idParam("Agent") },
  responses: { 200: jsonResponse(agentSchema, "The agent."), ...errorResponses(400, 404) },
});

export const registerGetAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getAgentRoute, async (c) => {
    const agent = await getAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    const { toolSecret } = await withToolSecret({ ctx: c.var.ctx, input: agent });
    return c.json(toAgent(agent, toolSecret), 200);
  });
