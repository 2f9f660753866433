import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { safeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { openCredentials, type WhatsAppCredentials } from "../../messaging/channels";
import { channelOf, params, tags } from "./shared";

export const whatsappVerifyRoute = createRoute({
  method: "get",
  path: "/whatsapp/{id}",
  tags,
  operationId: "whatsappVerify",
  security: publicSecurity,
  summary: "Meta's webhook verification: echoes hub.challenge when hub.verify_token is the channel's",
  request: {
    params,
    query: z.object({
      "hub.mode": z.string().optional(),
      "hub.verify_token": z.string().optional(),
      "hub.challenge": z.string().max(200).optional(),
    }),
  },
  responses: {
    200: { description: "The challenge, as text/plain.", content: { "text/plain": { schema: z.string() } } },
    ...errorResponses(403, 404),
  },
});

export const registerWhatsAppVerify = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(whatsappVerifyRoute, async (c) => {
    const channel = await channelOf(c, "whatsapp");
    const { verifyToken } = await openCredentials<WhatsAppCredentials>(c.var.config, channel);
    const q = c.req.valid("query");
    if (q["hub.mode"] !== "subscribe" || !q["hub.verify_token"] || !safeEqual(q["hub.verify_token"], verifyToken))
      throw new ApiError("forbidden", "hub.verify_token is not this channel's verify token (or hub.mode is not subscribe).");
    return c.text(q["hub.challenge"] ?? "", 200);
  });
