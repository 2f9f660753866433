import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { synthesizableProviders } from "../../../providers/registry";
import { toVoice } from "./mapper";
import { voiceSchema } from "./schema";
import { findVisibleVoice, voiceNotFound } from "./scope";

export const getVoiceRoute = createRoute({
  method: "get",
  path: "/v1/voices/{id}",
  tags: ["Voices"],
  operationId: "getVoice",
  summary: "Fetch a voice (system or owned)",
  security: bearerSecurity,
  request: { params: idParam("Voice") },
  responses: { 200: jsonResponse(voiceSchema, "The voice."), ...errorResponses(400, 404) },
});

export const registerGetVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getVoiceRoute, async (c) => {
    const row = await findVisibleVoice(c.var.db, c.var.auth.organizationId, c.req.valid("param").id);
    if (!row) throw voiceNotFound();
    return c.json(toVoice(row, synthesizableProviders(c.var.config)), 200);
  });
