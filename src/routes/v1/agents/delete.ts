import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { deleteAgent } from "../../../agents/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";

export const deleteAgentRoute = createRoute({
  method: "delete",
  path: "/agents/{id}",
  tags: ["Agents"],
  operationId: "deleteAgent",
  summary: "Delete an agent",
  description: "Deletes the agent at once; a second delete answers 404.",
  security: bearerSecurity,
  request: { params: idParam("Agent") },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404) },
});

export const registerDeleteAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteAgentRoute, async (c) => {
    await deleteAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
