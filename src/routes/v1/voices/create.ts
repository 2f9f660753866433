import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { toVoice } from "../../../voices/mapper";
import { createVoiceSchema, voiceSchema } from "../../../voices/schema";
import { createVoice } from "../../../voices/service";

export const createVoiceRoute = createRoute({
  method: "post",
  path: "/voices",
  tags: ["Voices"],
  operationId: "createVoice",
  summary: "Create an owned voice",
  description: "Registers a provider's voice for this workspace. Its agents can then use it as `voiceId`.",
  security: bearerSecurity,
  request: jsonBody(createVoiceSchema),
  responses: { 201: jsonResponse(voiceSchema, "The created voice (`type: owned`)."), ...errorResponses(400) },
});

export const registerCreateVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createVoiceRoute, async (c) => {
    const row = await createVoice({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/voices/${row.id}`);
    return c.json(toVoice(row, c.var.services.providers.synthesizable()), 201);
  });
