import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { agents } from "../../../db/schema";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { agentNotFound } from "./get";
import { toAgent, toAgentPatch } from "./mapper";
import { agentSchema, updateAgentSchema } from "./schema";
import { requireUsableVoice, whileVoiceExists } from "./voice-check";

export const updateAgentRoute = createRoute({
  method: "patch",
  path: "/v1/agents/{id}",
  tags: ["Agents"],
  operationId: "updateAgent",
  summary: "Update an agent",
  description:
    "Partial update with the create rules: only the fields sent change. `metadata` is replaced whole; `analysisPlan` sub-fields sent replace the current ones, the others are kept.",
  security: bearerSecurity,
  request: { params: idParam("Agent"), ...jsonBody(updateAgentSchema) },
  responses: { 200: jsonResponse(agentSchema, "The updated agent."), ...errorResponses(400, 404, 413, 415) },
});

export const registerUpdateAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateAgentRoute, async (c) => {
    const { db, auth } = c.var;
    const input = c.req.valid("json");
    await requireUsableVoice(db, auth.organizationId, input.voiceId);
    const [row] = await whileVoiceExists(
      db
        .update(agents)
        .set(toAgentPatch(input))
        .where(and(eq(agents.id, c.req.valid("param").id), eq(agents.organizationId, auth.organizationId)))
        .returning(),
    );
    if (!row) throw agentNotFound();
    return c.json(toAgent(row), 200);
  });
