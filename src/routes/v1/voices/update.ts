import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { voices } from "../../../db/schema";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { synthesizableProviders } from "../../../providers/registry";
import { toVoice, toVoicePatch } from "./mapper";
import { updateVoiceSchema, voiceSchema } from "./schema";
import { ownedBy, refuseUnowned } from "./scope";

export const updateVoiceRoute = createRoute({
  method: "patch",
  path: "/v1/voices/{id}",
  tags: ["Voices"],
  operationId: "updateVoice",
  summary: "Update an owned voice",
  description:
    "Partial update: only the fields sent change; `null` clears gender, previewUrl and description. System voices answer 409 `read_only`.",
  security: bearerSecurity,
  request: { params: idParam("Voice"), ...jsonBody(updateVoiceSchema) },
  responses: { 200: jsonResponse(voiceSchema, "The updated voice."), ...errorResponses(400, 404, 409, 413, 415) },
});

export const registerUpdateVoice = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateVoiceRoute, async (c) => {
    const { id } = c.req.valid("param");
    const org = c.var.auth.organizationId;
    const [row] = await c.var.db
      .update(voices)
      .set(toVoicePatch(c.req.valid("json")))
      .where(and(eq(voices.id, id), ownedBy(org)))
      .returning();
    if (!row) return refuseUnowned(c.var.db, id, "updated");
    return c.json(toVoice(row, synthesizableProviders(c.var.config)), 200);
  });
