import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { redisFor } from "../../../lib/redis";
import { CAPTURE_KEEP, endpointCaptures } from "../../../webhooks/capture";
import { capturedSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const testReceiverCapturesRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "get",
    path: `${m.base}/{id}/test-receiver`,
    operationId: opId(m, "listTestReceiverCaptures"),
    summary: `The built-in test receiver's captured requests (the most recent ${CAPTURE_KEEP})`,
    request: { params: idParam("Webhook endpoint") },
    responses: { 200: jsonResponse(capturedSchema, "Captured requests, newest first."), ...errorResponses(400, 403, 404) },
  });

export const registerTestReceiverCaptures = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(testReceiverCapturesRoute(m), async (c) =>
    c.json(
      await endpointCaptures({ ctx: { ...c.var.ctx, redis: redisFor(c.var.config) }, input: { endpointId: c.req.valid("param").id } }),
      200,
    ),
  );
