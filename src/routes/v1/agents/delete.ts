import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { agents } from "../../../db/schema";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { agentNotFound } from "./get";

export const deleteAgentRoute = createRoute({
  method: "delete",
  path: "/v1/agents/{id}",
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
    const [row] = await c.var.db
      .delete(agents)
      .where(and(eq(agents.id, c.req.valid("param").id), eq(agents.organizationId, c.var.auth.organizationId)))
      .returning({ id: agents.id });
    if (!row) throw agentNotFound();
    return c.body(null, 204);
  });
