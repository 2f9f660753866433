// What QStash's two callbacks (deliver.ts, failed.ts) share. QStash calls them (production mode):
// each request is verified with the official Receiver (current and next signing keys) before
// anything else, then claimed (src/webhooks/qstash-callbacks.ts): a replayed signature, or a
// redelivery of an attempt already made, makes no attempt. 2xx ends a message; non-2xx (502
// `receiver_failed`, in the one error body) makes QStash retry it; when it gives up it calls the
// failure callback.
import { z } from "@hono/zod-openapi";
import { Receiver } from "@upstash/qstash";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { redisFor } from "../../../lib/redis";
import {
  type CallbackAnswer,
  type CallbackIdentity,
  CLOCK_TOLERANCE_SECONDS,
  claimCallback,
  finishCallback,
  retriedOf,
  signatureClaims,
} from "../../../webhooks/qstash-callbacks";

/** The message QStash carries: the delivery to attempt, and why. */
export const messageSchema = z.object({ deliveryId: z.uuid(), trigger: z.enum(["emit", "retry", "resend", "test"]).optional() });

/** Verifies `Upstash-Signature` for this exact URL and body; returns the raw body and who the call is. */
export async function verified(c: Context<AppEnv>, path: string): Promise<{ body: string; identity: CallbackIdentity }> {
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
export async function claim(c: Context<AppEnv>, identity: CallbackIdentity): Promise<CallbackAnswer | null> {
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
export async function finish(c: Context<AppEnv>, identity: CallbackIdentity, answer: CallbackAnswer): Promise<void> {
  await finishCallback(redisFor(c.var.config, { retry: false, timeoutMs: 2000 }), identity.messageId, identity.jti, answer).catch((err) =>
    console.warn(
      JSON.stringify({ level: "warn", requestId: c.var.requestId, msg: "qstash finish not kept", error: (err as Error).message }),
    ),
  );
}

/** The message, JSON (base64 first when `base64`); anything unreadable is a 400. */
export function parse<T>(schema: z.ZodType<T>, raw: string, base64 = false): T {
  try {
    return schema.parse(JSON.parse(base64 ? atob(raw) : raw));
  } catch {
    throw new ApiError("validation_failed", "Unexpected QStash message body.");
  }
}
