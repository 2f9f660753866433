import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { checkChannel } from "../../../messaging/channels";
import { channelCheckSchema } from "../../../messaging/schema";
import { tags } from "./shared";

export const checkChannelRoute = createRoute({
  method: "post",
  path: "/channels/{id}/test",
  tags,
  operationId: "testChannel",
  summary: "Check a channel with its provider: do the credentials work, and where do messages go",
  security: bearerSecurity,
  request: { params: idParam("Channel") },
  responses: { 200: jsonResponse(channelCheckSchema, "What was checked; `ok` false says what to fix."), ...errorResponses(400, 404) },
});

export const registerCheckChannel = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(checkChannelRoute, async (c) => c.json(await checkChannel({ ctx: c.var.ctx, input: c.req.valid("param") }), 200));
