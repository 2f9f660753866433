// QStash calls these (production mode): each request is verified with the official Receiver
// (current and next signing keys) before anything else, then claimed (src/webhooks/qstash-callbacks.ts):
// a replayed signature, or a redelivery of an attempt already made, makes no attempt. 2xx ends a
// message; non-2xx (502 `receiver_failed`, in the one error body) makes QStash retry it; when it
// gives up it calls the failure callback.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { Receiver } from "@upstash/qstash";
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { errorResponses, errorSchema, jsonResponse, publicSecurity } from "../../lib/openapi";
import { redisFor } from "../../lib/redis";
import { attemptDelivery, recordFinalFailure } from "../../webhooks/attempt";
import { QSTASH_DELIVER_PATH, QSTASH_FAILED_PATH, type Trigger } from "../../webhooks/deliver";
import {
  type CallbackAnswer,
  type CallbackIdentity,
  CLOCK_TOLERANCE_SECONDS,
  claimCallback,
  finishCallback,
  retriedOf,
  signatureClaims,
} from "../../webhooks/qstash-callbacks";

const messageSchema = z.object({ deliveryId: z.uuid(), trigger: z.enum(["emit", "retry", "resend", "test"]).optional() });
const failureSchema = z.object({ sourceBody: z.string() });

/** Verifies `Upstash-Signature` for this exact URL and body; returns the raw body and who the call is. */
async function verified(c: Context<AppEnv>, path: string): Promise<{ body: string; identity: CallbackIdentity }> {
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
    .verify({
      signature,
      body,
      url: `${config.PUBLIC_BASE_URL.replace(/\/$/, "")}${path}`,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    })
    .catch(() => false);
  if (!ok) throw new ApiError("unauthorized", "Invalid Upstash-Signature.");
  const claims = signatureClaims(signature);
  if (!claims) throw new ApiError("unauthorized", "Invalid Upstash-Signature: it has no `jti` and `exp`.");
  const identity = {
    ...claims,
    messageId: c.req.header("upstash-message-id") || null,
    retried: retriedOf(c.req.header("upstash-retried")),
  };
  return { body, identity };
}

/**
 * Claims the call before anything is done: a replayed signature or an attempt already made is a
 * 409 (nothing done); a finished message gets its answer again. Redis unreachable: 503, so QStash
 * comes back later rather than an attempt being made twice. Returns the answer to give, if any.
 */
async function claim(c: Context<AppEnv>, identity: CallbackIdentity): Promise<CallbackAnswer | null> {
  let claimed: Awaited<ReturnType<typeof claimCallback>>;
  try {
    claimed = await claimCallback(redisFor(c.var.config, { retry: false, timeoutMs: 2000 }), identity);
  } catch (err) {
    console.error(
      JSON.stringify({ level: "error", requestId: c.var.requestId, msg: "qstash claim failed", error: (err as Error).message }),
    );
    throw new ApiError("service_unavailable", "Could not check whether this QStash call was made already; retry.");
  }
  switch (claimed.verdict) {
    case "go":
      return null;
    case "done":
      return claimed.answer;
    case "replayed":
      throw new ApiError("conflict", "This Upstash-Signature was presented already (a replayed call); nothing was done.");
    case "made":
      throw new ApiError(
        "conflict",
        `Call ${identity.retried} of this QStash message was made already (up to ${claimed.retried} claimed); nothing was done.`,
      );
  }
}

/** Keeps the answer that ends the message; a failure to keep it is logged (the answer stands). */
async function finish(c: Context<AppEnv>, identity: CallbackIdentity, answer: CallbackAnswer): Promise<void> {
  await finishCallback(redisFor(c.var.config, { retry: false, timeoutMs: 2000 }), identity.messageId, identity.jti, answer).catch((err) =>
    console.warn(
      JSON.stringify({ level: "warn", requestId: c.var.requestId, msg: "qstash finish not kept", error: (err as Error).message }),
    ),
  );
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

const failedRoute = createRoute({
  method: "post",
  path: QSTASH_FAILED_PATH,
  tags: ["Internal"],
  operationId: "qstashFailed",
  security: publicSecurity,
  summary: "QStash failure callback: a delivery exhausted its retries (Upstash-Signature verified)",
  responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), "Recorded."), ...errorResponses(400, 404, 409, 503) },
});

export function registerQstashRoutes(app: OpenAPIHono<AppEnv>): void {
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
}
