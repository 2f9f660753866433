import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { updateChannel } from "../../../messaging/channels";
import { toChannelView } from "../../../messaging/mapper";
import { channelSchema, updateChannelSchema } from "../../../messaging/schema";
import { tags } from "./shared";

export const updateChannelRoute = createRoute({
  method: "patch",
  path: "/channels/{id}",
  tags,
  operationId: "updateChannel",
  summary: "Rename, pause or resume a channel, or give it another agent",
  description: "A paused channel acknowledges messages and answers none; its open conversations stay open until they idle out.",
  security: bearerSecurity,
  request: { params: idParam("Channel"), ...jsonBody(updateChannelSchema) },
  responses: { 200: jsonResponse(channelSchema, "The channel."), ...errorResponses(400, 404) },
});

export const registerUpdateChannel = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateChannelRoute, async (c) => {
    const row = await updateChannel({ ctx: c.var.ctx, input: { ...c.req.valid("json"), ...c.req.valid("param") } });
    return c.json(toChannelView(row, c.var.services.publicOrigin), 200);
  });
