import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { agentPageSchema, listAgentsQuerySchema } from "../../../agents/schema";
import { listAgents, withToolSecret } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";

export const listAgentsRoute = createRoute({
  method: "get",
  path: "/agents",
  readsAlongsideTheKeyCheck: true,
  tags: ["Agents"],
  operationId: "listAgents",
  summary: "List the workspace's agents",
  description: "Newest first. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: listAgentsQuerySchema },
  responses: { 200: jsonResponse(agentPageSchema, "A page of agents."), ...errorResponses(400) },
});

export const registerListAgents = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listAgentsRoute, async (c) => {
    const page = await listAgents({ ctx: c.var.ctx, input: c.req.valid("query") });
    const opened = await Promise.all(page.data.map((row) => withToolSecret({ ctx: c.var.ctx, input: row })));
    return c.json({ ...page, data: opened.map(({ agent, toolSecret }) => toAgent(agent, toolSecret)) }, 200);
  });
