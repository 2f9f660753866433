import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { toVoice } from "../../../voices/mapper";
import { updateVoiceSchema, voiceSchema } from "../../../voices/schema";
import { updateVoice } from "../../../voices/service";

export const updateVoiceRoute = createRoute({
  method: "patch",
  path: "/voices/{id}",
  tags: ["Voices"],
  operationId: "updateVoice",
  summary: "Update an owned voice",
  description:
    "Partial update: only the fields sent change; `null` clears gender, previewUrl and description. System voices answer 409 `read_only`.",
  security: bearerSecurity,
  request: { params: idParam("Voice"), ...jsonBody(updateVoiceSchema) },
  responses: { 200: jsonResponse(voiceSchema, "The updated voice."), ...errorResponses(400, 404, 409) },
});

export const registerUpdateVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateVoiceRoute, async (c) => {
    const row = await updateVoice({
      ctx: { ...c.var.ctx, samples: c.env.RECORDINGS },
      input: { id: c.req.valid("param").id, patch: c.req.valid("json") },
    });
    return c.json(toVoice(row, c.var.services.providers.synthesizable()), 200);
  });
