import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { safeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { openCredentials, type TelegramCredentials } from "../../messaging/channels";
import { parseTelegramUpdate } from "../../messaging/telegram";
import { accept, ack, channelOf, jsonBody, params, tags } from "./shared";

export const telegramUpdateRoute = createRoute({
  method: "post",
  path: "/telegram/{id}",
  tags,
  operationId: "telegramUpdate",
  security: publicSecurity,
  summary: "Telegram's updates for a channel's bot (X-Telegram-Bot-Api-Secret-Token)",
  request: { params },
  responses: { 200: ack, ...errorResponses(400, 401, 404, 415) },
});

export const registerTelegramUpdate = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(telegramUpdateRoute, async (c) => {
    const channel = await channelOf(c, "telegram");
    const { secretToken } = await openCredentials<TelegramCredentials>(c.var.config, channel);
    const given = c.req.header("x-telegram-bot-api-secret-token");
    if (!given || !safeEqual(given, secretToken))
      throw new ApiError("unauthorized", "The X-Telegram-Bot-Api-Secret-Token does not match this channel.");
    return accept(c, channel, parseTelegramUpdate(jsonBody(c, await c.req.text())));
  });
