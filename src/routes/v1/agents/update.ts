import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../agents/mapper";
import { agentSchema, updateAgentSchema } from "../../../agents/schema";
import { updateAgent } from "../../../agents/service";
import { updateAgentQuerySchema } from "../../../agents/versions-schema";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";

export const updateAgentRoute = createRoute({
  method: "patch",
  path: "/agents/{id}",
  tags: ["Agents"],
  operationId: "updateAgent",
  summary: "Update an agent",
  description:
    "Partial update with the create rules: only the fields sent change. `metadata` is replaced whole; `analysisPlan` sub-fields sent replace the current ones, the others are kept. Each change is a new version, live at once; with `?draft=true` it is saved as a draft (built on the newest version, not live until published), and the response is the agent as it stands, live configuration unchanged.",
  security: bearerSecurity,
  request: { params: idParam("Agent"), query: updateAgentQuerySchema, ...jsonBody(updateAgentSchema) },
  responses: { 200: jsonResponse(agentSchema, "The updated agent."), ...errorResponses(400, 404) },
});

export const registerUpdateAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateAgentRoute, async (c) => {
    const { draft } = c.req.valid("query");
    const saved = await updateAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id, patch: c.req.valid("json"), draft } });
    return c.json(toAgent(saved.agent, saved.toolSecret, saved.secretCreated), 200);
  });
