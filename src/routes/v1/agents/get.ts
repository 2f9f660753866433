import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { agents } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { toAgent } from "./mapper";
import { agentSchema } from "./schema";

/** The one answer for a missing agent and another workspace's agent. */
export const agentNotFound = () => new ApiError("not_found", "No agent with that id in this workspace.");

export const getAgentRoute = createRoute({
  method: "get",
  path: "/v1/agents/{id}",
  tags: ["Agents"],
  operationId: "getAgent",
  summary: "Fetch an agent",
  security: bearerSecurity,
  request: { params: idParam("Agent") },
  responses: { 200: jsonResponse(agentSchema, "The agent."), ...errorResponses(400, 404) },
});

export const registerGetAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getAgentRoute, async (c) => {
    const [row] = await c.var.db
      .select()
      .from(agents)
      .where(and(eq(agents.id, c.req.valid("param").id), eq(agents.organizationId, c.var.auth.organizationId)))
      .limit(1);
    if (!row) throw agentNotFound();
    return c.json(toAgent(row), 200);
  });
