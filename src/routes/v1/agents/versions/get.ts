import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgentVersion } from "../../../../agents/mapper";
import { getAgentVersion } from "../../../../agents/versions";
import { agentVersionSchema, versionParams } from "../../../../agents/versions-schema";
import type { AppEnv } from "../../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../../lib/openapi";

export const getAgentVersionRoute = createRoute({
  method: "get",
  path: "/agents/{id}/versions/{version}",
  tags: ["Agents"],
  operationId: "getAgentVersion",
  summary: "Fetch one version of an agent, with its whole configuration",
  security: bearerSecurity,
  request: { params: versionParams },
  responses: { 200: jsonResponse(agentVersionSchema, "The version."), ...errorResponses(400, 404) },
});

export const registerGetAgentVersion = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getAgentVersionRoute, async (c) => {
    const { id, version } = c.req.valid("param");
    const found = await getAgentVersion({ ctx: c.var.ctx, input: { agentId: id, version } });
    return c.json(toAgentVersion(found.version, found.agent.liveVersion), 200);
  });
