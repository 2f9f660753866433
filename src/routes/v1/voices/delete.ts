import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { AppEnv } from "../../../context";
import { voices } from "../../../db/schema";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { ownedBy, refuseUnowned } from "./scope";

export const deleteVoiceRoute = createRoute({
  method: "delete",
  path: "/v1/voices/{id}",
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
    const { id } = c.req.valid("param");
    const [row] = await c.var.db
      .delete(voices)
      .where(and(eq(voices.id, id), ownedBy(c.var.auth.organizationId)))
      .returning({ id: voices.id });
    if (!row) return refuseUnowned(c.var.db, id, "deleted");
    return c.body(null, 204);
  });
