import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { toVoice } from "../../../voices/mapper";
import { voiceSchema } from "../../../voices/schema";
import { getVoice } from "../../../voices/service";

export const getVoiceRoute = createRoute({
  method: "get",
  path: "/voices/{id}",
  tags: ["Voices"],
  operationId: "getVoice",
  summary: "Fetch a voice (system or owned)",
  security: bearerSecurity,
  request: { params: idParam("Voice") },
  responses: { 200: jsonResponse(voiceSchema, "The voice."), ...errorResponses(400, 404) },
});

export const registerGetVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getVoiceRoute, async (c) => {
    const row = await getVoice({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.json(toVoice(row, c.var.services.providers.synthesizable()), 200);
  });
