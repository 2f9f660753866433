import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, jsonResponse, publicSecurity } from "../../../lib/openapi";
import { recordFinalFailure } from "../../../webhooks/attempt";
import { QSTASH_FAILED_PATH } from "../../../webhooks/deliver";
import { claim, finish, messageSchema, parse, verified } from "./shared";

/** The failure callback's body: the original message, base64. */
const failureSchema = z.object({ sourceBody: z.string() });

export const failedRoute = createRoute({
  method: "post",
  path: QSTASH_FAILED_PATH,
  tags: ["Internal"],
  operationId: "qstashFailed",
  security: publicSecurity,
  summary: "QStash failure callback: a delivery exhausted its retries (Upstash-Signature verified)",
  responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), "Recorded."), ...errorResponses(400, 404, 409, 503) },
});

export const registerQstashFailed = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(failedRoute, async (c) => {
    const { body, identity } = await verified(c, QSTASH_FAILED_PATH);
    const message = parse(messageSchema, parse(failureSchema, body).sourceBody, true);
    // A failure already counted (the callback redelivered) is not counted again.
    if (!(await claim(c, identity))) {
      await recordFinalFailure(c.var.services.webhooks, message.deliveryId);
      await finish(c, identity, { ok: true, statusCode: null });
    }
    return c.json({ ok: true as const }, 200);
  });
