import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { errorResponses, errorSchema, jsonResponse, publicSecurity } from "../../../lib/openapi";
import { attemptDelivery, recordFinalFailure } from "../../../webhooks/attempt";
import { QSTASH_DELIVER_PATH, type Trigger } from "../../../webhooks/deliver";
import { claim, finish, messageSchema, parse, verified } from "./shared";

export const deliverRoute = createRoute({
  method: "post",
  path: QSTASH_DELIVER_PATH,
  tags: ["Internal"],
  operationId: "qstashDeliver",
  security: publicSecurity,
  summary: "QStash callback: make one attempt of a webhook delivery (Upstash-Signature verified)",
  responses: {
    200: jsonResponse(
      z.object({ ok: z.boolean(), statusCode: z.number().nullable(), retry: z.literal(false) }),
      "Done: succeeded, or failed for good (a later call of a finished message gets the same answer and makes no attempt).",
    ),
    ...errorResponses(400, 404, 503),
    409: {
      description: "`conflict`: a replayed signature, or a call for an attempt already made; nothing was done.",
      content: { "application/json": { schema: errorSchema } },
    },
    502: {
      description: "`receiver_failed`: the receiver answered non-2xx or could not be reached (DNS included); QStash retries.",
      content: { "application/json": { schema: errorSchema } },
    },
  },
});

export const registerQstashDeliver = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deliverRoute, async (c) => {
    const { body, identity } = await verified(c, QSTASH_DELIVER_PATH);
    const message = parse(messageSchema, body);
    const answered = await claim(c, identity);
    if (answered) return c.json({ ...answered, retry: false as const }, 200);
    const trigger: Trigger =
      message.trigger === "resend" || message.trigger === "test" ? message.trigger : identity.retried > 0 ? "retry" : "emit";
    const deps = c.var.services.webhooks;
    const result = await attemptDelivery(deps, message.deliveryId, trigger);
    if (result.ok || !result.retryable) {
      if (!result.ok) await recordFinalFailure(deps, message.deliveryId);
      const answer = { ok: result.ok, statusCode: result.statusCode };
      await finish(c, identity, answer);
      return c.json({ ...answer, retry: false as const }, 200);
    }
    const outcome = result.statusCode === null ? (result.error ?? "no answer") : `HTTP ${result.statusCode}`;
    throw new ApiError("receiver_failed", `Attempt ${result.attempt ?? "?"} of delivery ${message.deliveryId} failed (${outcome}); retry.`);
  });
