import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getAgent } from "../../../agents/service";
import { toCallView } from "../../../calls/mapper";
import { type Ctx, placePhoneCall, startWebCall } from "../../../calls/place";
import { WEB_CALL_RATE } from "../../../calls/transports";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { publicOrigin } from "../../../webhooks/endpoints";
import { callSchema, createCallSchema, createWebCallSchema, webCallSchema } from "./schema";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const callCtx = (c: Context<AppEnv>): Ctx => ({
  db: c.var.db,
  config: c.var.config,
  env: c.env,
  deps: c.var.services.webhooks,
  organizationId: c.var.auth.organizationId,
  origin: publicOrigin(c.var.config, new URL(c.req.url).origin),
});

export const createCallRoute = createRoute({
  method: "post",
  path: "/agents/{id}/calls",
  tags: ["Calls"],
  operationId: "createCall",
  summary: "Place an outbound phone call with the agent",
  description:
    "Answers 201 with the call (status `queued`, or `failed` with `endedReason` when the carrier refused the number). " +
    "Send an `Idempotency-Key` header to make retries safe: the same key and body answer the same call (header `Idempotent-Replayed: true`) instead of dialling again.",
  security: bearerSecurity,
  request: {
    params: idParam("Agent"),
    headers: z.object({
      "idempotency-key": z
        .string()
        .optional()
        .openapi({ description: "1 to 255 printable ASCII characters.", example: "order-1042-reminder" }),
    }),
    ...jsonBody(createCallSchema),
  },
  responses: { 201: jsonResponse(callSchema, "The call."), ...errorResponses(400, 402, 404, 409, 502, 503) },
});

export const createWebCallRoute = createRoute({
  method: "post",
  path: "/agents/{id}/web-call",
  tags: ["Calls"],
  operationId: "createWebCall",
  summary: "Start an in-browser voice session with the agent",
  description:
    "Answers the call (type `web`) and a one-time session token with the WebSocket URL to open from the browser. " +
    "The token works once and expires after WEB_CALL_TOKEN_TTL_SECONDS (120 s by default); docs/calls.md describes the socket's protocol.",
  security: bearerSecurity,
  request: { params: idParam("Agent"), ...jsonBody(createWebCallSchema) },
  responses: { 201: jsonResponse(webCallSchema, "The web call and how to join it."), ...errorResponses(400, 402, 404) },
});

export function registerPlaceCalls(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createCallRoute, async (c) => {
    const key = c.req.header("idempotency-key");
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
      throw new ApiError("bad_request", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
    const agent = await getAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    const ctx = callCtx(c);
    const { call, replayed } = await placePhoneCall(ctx, agent, c.req.valid("json"), key);
    c.header("Location", `/v1/calls/${call.id}`);
    if (replayed) c.header("Idempotent-Replayed", "true");
    return c.json(toCallView(call, undefined, ctx.origin), 201);
  });

  app.openapi(createWebCallRoute, async (c) => {
    const agent = await getAgent({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    const ctx = callCtx(c);
    const session = await startWebCall(ctx, agent, c.req.valid("json"));
    c.header("Location", `/v1/calls/${session.call.id}`);
    return c.json(
      {
        call: toCallView(session.call, undefined, ctx.origin),
        webCall: {
          url: session.url,
          token: session.token,
          expiresAt: session.expiresAt.toISOString(),
          sampleRate: WEB_CALL_RATE,
          encoding: "pcm_s16le" as const,
        },
      },
      201,
    );
  });
}
