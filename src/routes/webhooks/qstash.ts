// QStash calls these (production mode): each request is verified with the official Receiver
// (current and next signing keys) before anything else. 2xx ends a message; non-2xx (502
// `receiver_failed`, in the one error body) makes QStash retry it; when it gives up it calls
// the failure callback.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Receiver } from "@upstash/qstash";
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { errorResponses, errorSchema, jsonResponse, publicSecurity } from "../../lib/openapi";
import { attemptDelivery, recordFinalFailure } from "../../webhooks/attempt";
import { QSTASH_DELIVER_PATH, QSTASH_FAILED_PATH, type Trigger } from "../../webhooks/deliver";

const messageSchema = z.object({ deliveryId: z.uuid(), trigger: z.enum(["emit", "retry", "resend", "test"]).optional() });
const failureSchema = z.object({ sourceBody: z.string() });

/** Verifies `Upstash-Signature` for this exact URL and body; returns the raw body. */
async function verified(c: Context<AppEnv>, path: string): Promise<string> {
  const { config } = c.var;
  if (!config.QSTASH_TOKEN || !config.QSTASH_CURRENT_SIGNING_KEY || !config.QSTASH_NEXT_SIGNING_KEY || !config.PUBLIC_BASE_URL) {
    throw new ApiError("not_found", "QStash delivery is not configured on this deployment.");
  }
  const signature = c.req.header("upstash-signature");
  if (!signature) throw new ApiError("unauthorized", "Missing Upstash-Signature.");
  const body = await c.req.text();
  const receiver = new Receiver({
    currentSigningKey: config.QSTASH_CURRENT_SIGNING_KEY,
    nextSigningKey: config.QSTASH_NEXT_SIGNING_KEY,
    devMode: false,
  });
  const ok = await receiver
    .verify({ signature, body, url: `${config.PUBLIC_BASE_URL.replace(/\/$/, "")}${path}`, clockTolerance: 5 })
    .catch(() => false);
  if (!ok) throw new ApiError("unauthorized", "Invalid Upstash-Signature.");
  return body;
}

/** The message, JSON (base64 first when `base64`); anything unreadable is a 400. */
function parse<T>(schema: z.ZodType<T>, raw: string, base64 = false): T {
  try {
    return schema.parse(JSON.parse(base64 ? atob(raw) : raw));
  } catch {
    throw new ApiError("validation_failed", "Unexpected QStash message body.");
  }
}

const deliverRoute = createRoute({
  method: "post",
  path: QSTASH_DELIVER_PATH,
  tags: ["Internal"],
  operationId: "qstashDeliver",
  security: publicSecurity,
  summary: "QStash callback: make one attempt of a webhook delivery (Upstash-Signature verified)",
  responses: {
    200: jsonResponse(
      z.object({ ok: z.boolean(), statusCode: z.number().nullable(), retry: z.literal(false) }),
      "Done: succeeded, or failed for good.",
    ),
    ...errorResponses(400, 404),
    502: {
      description: "`receiver_failed`: the receiver answered non-2xx or could not be reached (DNS included); QStash retries.",
      content: { "application/json": { schema: errorSchema } },
    },
  },
});

const failedRoute = createRoute({
  method: "post",
  path: QSTASH_FAILED_PATH,
  tags: ["Internal"],
  operationId: "qstashFailed",
  security: publicSecurity,
  summary: "QStash failure callback: a delivery exhausted its retries (Upstash-Signature verified)",
  responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), "Recorded."), ...errorResponses(400, 404) },
});

export function registerQstashRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(deliverRoute, async (c) => {
    const message = parse(messageSchema, await verified(c, QSTASH_DELIVER_PATH));
    const retried = Number(c.req.header("upstash-retried") ?? "0");
    const trigger: Trigger = message.trigger === "resend" || message.trigger === "test" ? message.trigger : retried > 0 ? "retry" : "emit";
    const deps = c.var.services.webhooks;
    const result = await attemptDelivery(deps, message.deliveryId, trigger);
    if (result.ok) return c.json({ ok: true, statusCode: result.statusCode, retry: false as const }, 200);
    if (!result.retryable) {
      await recordFinalFailure(deps, message.deliveryId);
      return c.json({ ok: false, statusCode: result.statusCode, retry: false as const }, 200);
    }
    const outcome = result.statusCode === null ? (result.error ?? "no answer") : `HTTP ${result.statusCode}`;
    throw new ApiError("receiver_failed", `Attempt ${result.attempt ?? "?"} of delivery ${message.deliveryId} failed (${outcome}); retry.`);
  });

  app.openapi(failedRoute, async (c) => {
    const failure = parse(failureSchema, await verified(c, QSTASH_FAILED_PATH));
    const message = parse(messageSchema, failure.sourceBody, true);
    await recordFinalFailure(c.var.services.webhooks, message.deliveryId);
    return c.json({ ok: true as const }, 200);
  });
}
