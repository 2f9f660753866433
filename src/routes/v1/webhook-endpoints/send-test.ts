import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { sendTestEvent } from "../../../webhooks/test-event";
import { deliverySchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const sendTestRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "post",
    path: `${m.base}/{id}/test`,
    operationId: opId(m, "sendTestWebhook"),
    summary: "Send Test: post a synthetic call.completed payload to this endpoint now",
    request: { params: idParam("Webhook endpoint") },
    responses: {
      200: jsonResponse(deliverySchema, "The test delivery and its attempt (in QStash mode the attempt follows shortly)."),
      ...errorResponses(400, 403, 404),
    },
  });

export const registerSendTest = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(sendTestRoute(m), async (c) =>
    c.json(await sendTestEvent({ ctx: c.var.ctx, input: { endpointId: c.req.valid("param").id } }), 200),
  );
