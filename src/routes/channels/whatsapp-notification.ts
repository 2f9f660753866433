import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { openCredentials, type WhatsAppCredentials } from "../../messaging/channels";
import { parseWhatsAppNotification, verifyWhatsAppSignature } from "../../messaging/whatsapp";
import { accept, ack, channelOf, jsonBody, params, tags } from "./shared";

export const whatsappNotificationRoute = createRoute({
  method: "post",
  path: "/whatsapp/{id}",
  tags,
  operationId: "whatsappNotification",
  security: publicSecurity,
  summary: "WhatsApp's notifications for a channel's number (X-Hub-Signature-256)",
  request: { params },
  responses: { 200: ack, ...errorResponses(400, 401, 404, 415) },
});

export const registerWhatsAppNotification = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(whatsappNotificationRoute, async (c) => {
    const channel = await channelOf(c, "whatsapp");
    const { appSecret, phoneNumberId } = await openCredentials<WhatsAppCredentials>(c.var.config, channel);
    const raw = new Uint8Array(await c.req.arrayBuffer());
    if (!(await verifyWhatsAppSignature(appSecret, raw, c.req.header("x-hub-signature-256"))))
      throw new ApiError("unauthorized", "The X-Hub-Signature-256 does not match this body and the channel's app secret.");
    const body = jsonBody(c, new TextDecoder().decode(raw));
    return accept(c, channel, await parseWhatsAppNotification(body, phoneNumberId));
  });
