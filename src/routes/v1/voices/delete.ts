import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { deleteVoice } from "../../../voices/service";

export const deleteVoiceRoute = createRoute({
  method: "delete",
  path: "/voices/{id}",
  tags: ["Voices"],
  operationId: "deleteVoice",
  summary: "Delete an owned voice",
  description:
    "Deletes the voice at once. Agents that used it keep working with `voiceId: null` (the platform default voice). System voices answer 409 `read_only`.",
  security: bearerSecurity,
  request: { params: idParam("Voice") },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404, 409) },
});

export const registerDeleteVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteVoiceRoute, async (c) => {
    await deleteVoice({ ctx: { ...c.var.ctx, samples: c.env.RECORDINGS }, input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
