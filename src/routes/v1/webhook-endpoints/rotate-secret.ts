import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { rotateSecret, toEndpointView } from "../../../webhooks/endpoints";
import { endpointSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const rotateSecretRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "post",
    path: `${m.base}/{id}/rotate-secret`,
    operationId: opId(m, "rotateWebhookSecret"),
    summary: "Rotate the signing secret: the old one stops signing at once; the new one is shown once",
    request: { params: idParam("Webhook endpoint") },
    responses: { 200: jsonResponse(endpointSchema, "Rotated; `secret` is the new secret, in full."), ...errorResponses(400, 403, 404) },
  });

export const registerRotateSecret = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(rotateSecretRoute(m), async (c) => {
    const row = await rotateSecret({ ctx: c.var.ctx, input: { id: c.req.valid("param").id } });
    return c.json(toEndpointView(row, c.var.services.publicOrigin, true), 200);
  });
