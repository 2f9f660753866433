import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { createChannel } from "../../../messaging/channels";
import { toChannelView } from "../../../messaging/mapper";
import { channelSchema, createChannelSchema } from "../../../messaging/schema";
import { tags } from "./shared";

export const createChannelRoute = createRoute({
  method: "post",
  path: "/channels",
  tags,
  operationId: "createChannel",
  summary: "Connect a Telegram bot or a WhatsApp Business number to an agent",
  description:
    "The credentials are checked with Telegram or WhatsApp first (nothing is saved when they are refused); a Telegram bot's webhook is pointed at the platform at once. Credentials are write-only. docs/messaging.md.",
  security: bearerSecurity,
  request: jsonBody(createChannelSchema),
  responses: { 201: jsonResponse(channelSchema, "The connected channel."), ...errorResponses(400, 404, 409, 502) },
});

export const registerCreateChannel = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createChannelRoute, async (c) => {
    const row = await createChannel({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/channels/${row.id}`);
    return c.json(toChannelView(row, c.var.services.publicOrigin), 201);
  });
