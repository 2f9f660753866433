import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { agentSchema } from "../../../agents/schema";
import { rotateToolSecret } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";

export const rotateToolSecretRoute = createRoute({
  method: "post",
  path: "/agents/{id}/rotate-tool-secret",
  tags: ["Agents"],
  operationId: "rotateAgentToolSecret",
  summary: "Rotate the secret that signs an agent's tool requests",
  description:
    "A new `tss_` secret signs every tool request from now on (the old one stops at once); the response is the only place it is shown in full (docs/tools.md).",
  security: bearerSecurity,
  request: { params: idParam("Agent") },
  responses: { 200: jsonResponse(agentSchema, "The agent, its new toolSecret in full."), ...errorResponses(400, 404) },
});

export const registerRotateToolSecret = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(rotateToolSecretRoute, async (c) => {
    const saved = await rotateToolSecret({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.json(toAgent(saved.agent, saved.toolSecret, true), 200);
  });
