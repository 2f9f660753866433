import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { diffAgentVersions } from "../../../../agents/versions";
import { agentVersionDiffSchema, diffParams } from "../../../../agents/versions-schema";
import type { AppEnv } from "../../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../../lib/openapi";

export const diffAgentVersionsRoute = createRoute({
  method: "get",
  path: "/agents/{id}/versions/{from}/diff/{to}",
  tags: ["Agents"],
  operationId: "diffAgentVersions",
  summary: "Compare two versions of an agent",
  description: "Each top-level configuration field whose value differs, with its value in `from` and in `to`; empty when they are equal.",
  security: bearerSecurity,
  request: { params: diffParams },
  responses: { 200: jsonResponse(agentVersionDiffSchema, "What changed."), ...errorResponses(400, 404) },
});

export const registerDiffAgentVersions = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(diffAgentVersionsRoute, async (c) => {
    const { id, from, to } = c.req.valid("param");
    return c.json(await diffAgentVersions({ ctx: c.var.ctx, input: { agentId: id, from, to } }), 200);
  });
