import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { getChannel } from "../../../messaging/channels";
import { toChannelView } from "../../../messaging/mapper";
import { channelSchema } from "../../../messaging/schema";
import { tags } from "./shared";

export const getChannelRoute = createRoute({
  method: "get",
  path: "/channels/{id}",
  tags,
  operationId: "getChannel",
  summary: "Fetch a messaging channel",
  security: bearerSecurity,
  request: { params: idParam("Channel") },
  responses: { 200: jsonResponse(channelSchema, "The channel."), ...errorResponses(400, 404) },
});

export const registerGetChannel = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getChannelRoute, async (c) => {
    const row = await getChannel({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.json(toChannelView(row, c.var.services.publicOrigin), 200);
  });
