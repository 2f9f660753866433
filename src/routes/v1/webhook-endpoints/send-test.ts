import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { emptyBodyIsNone } from "../../../middleware/guards";
import { sendTestEvent } from "../../../webhooks/test-event";
import { deliverySchema, sendTestSchema } from "./schema";
import { common, type Mount, opId } from "./shared";

export const sendTestRoute = (m: Mount) =>
  createRoute({
    ...common(m),
    method: "post",
    path: `${m.base}/{id}/test`,
    operationId: opId(m, "sendTestWebhook"),
    summary: "Send Test: post a synthetic payload of an event (default call.completed) to this endpoint now",
    description:
      "The body is optional: without one (an empty body too, whatever its Content-Type) or with `{}`, the test is a `call.completed`. An event this platform does not send is a 400 whose message lists those it does.",
    middleware: [emptyBodyIsNone] as const,
    request: {
      params: idParam("Webhook endpoint"),
      body: { required: false, content: { "application/json": { schema: sendTestSchema } } },
    },
    responses: {
      200: jsonResponse(deliverySchema, "The test delivery and its attempt (in QStash mode the attempt follows shortly)."),
      ...errorResponses(400, 403, 404),
    },
  });

export const registerSendTest = (app: OpenAPIHono<AppEnv>, m: Mount) =>
  app.openapi(sendTestRoute(m), async (c) => {
    const { event } = c.req.valid("json");
    return c.json(await sendTestEvent({ ctx: c.var.ctx, input: { endpointId: c.req.valid("param").id, event } }), 200);
  });
