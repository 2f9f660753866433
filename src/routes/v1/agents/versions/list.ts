import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgentVersionSummary } from "../../../../agents/mapper";
import { listAgentVersions } from "../../../../agents/versions";
import { agentVersionPageSchema, listVersionsQuerySchema } from "../../../../agents/versions-schema";
import type { AppEnv } from "../../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../../lib/openapi";

export const listAgentVersionsRoute = createRoute({
  method: "get",
  path: "/agents/{id}/versions",
  tags: ["Agents"],
  operationId: "listAgentVersions",
  summary: "List an agent's versions",
  description: "Newest first: number, time, who made it and the fields it changed, without the configuration (get one for that).",
  security: bearerSecurity,
  request: { params: idParam("Agent"), query: listVersionsQuerySchema },
  responses: { 200: jsonResponse(agentVersionPageSchema, "A page of versions."), ...errorResponses(400, 404) },
});

export const registerListAgentVersions = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listAgentVersionsRoute, async (c) => {
    const { agent, page } = await listAgentVersions({
      ctx: c.var.ctx,
      input: { agentId: c.req.valid("param").id, ...c.req.valid("query") },
    });
    return c.json({ ...page, data: page.data.map((row) => toAgentVersionSummary(row, agent.liveVersion)) }, 200);
  });
