import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { agents } from "../../../db/schema";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { toAgent, toNewAgentRow } from "./mapper";
import { agentSchema, createAgentSchema } from "./schema";
import { requireUsableVoice, whileVoiceExists } from "./voice-check";

export const createAgentRoute = createRoute({
  method: "post",
  path: "/v1/agents",
  tags: ["Agents"],
  operationId: "createAgent",
  summary: "Create an agent",
  description: "Only `name` and `personaId` are required; every other field has a default (docs/agents.md). Unknown fields are refused.",
  security: bearerSecurity,
  request: jsonBody(createAgentSchema),
  responses: { 201: jsonResponse(agentSchema, "The created agent, with every default filled in."), ...errorResponses(400, 413, 415) },
});

export const registerCreateAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createAgentRoute, async (c) => {
    const { db, auth } = c.var;
    const input = c.req.valid("json");
    await requireUsableVoice(db, auth.organizationId, input.voiceId);
    const [row] = await whileVoiceExists(db.insert(agents).values(toNewAgentRow(auth.organizationId, input)).returning());
    if (!row) throw new Error("insert returned no row");
    c.header("Location", `/v1/agents/${row.id}`);
    return c.json(toAgent(row), 201);
  });
