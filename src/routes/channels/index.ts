// The messaging providers' webhooks, one address per channel (docs/messaging.md). No API key;
// each delivery proves itself: Telegram's X-Telegram-Bot-Api-Secret-Token (the secret we gave
// setWebhook), WhatsApp's X-Hub-Signature-256 over the raw body (the app secret), and Meta's
// verification handshake (the verify token). A delivery that fails its check is refused with 401
// and nothing is stored; an authenticated one must be sent as application/json (415 otherwise).
// Its content is never refused: what does not match the provider's format is acknowledged and
// dropped, or kept as unsupported (src/messaging/parsed.ts), so no delivery is retried into a
// stall. Accepted messages are stored and acknowledged at once; the replies are written after the
// response (src/messaging/inbound.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, createRouter } from "../../context";
import type { MessagingChannel } from "../../db/schema";
import { safeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { errorResponses, jsonResponse, publicSecurity } from "../../lib/openapi";
import { channelById, openCredentials, type TelegramCredentials, type WhatsAppCredentials } from "../../messaging/channels";
import { drainConversation, receive } from "../../messaging/inbound";
import { type InboundDelivery, storable } from "../../messaging/parsed";
import { parseTelegramUpdate } from "../../messaging/telegram";
import { parseWhatsAppNotification, verifyWhatsAppSignature } from "../../messaging/whatsapp";

const tags = ["Channels (provider webhooks)"];
const params = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The channel's id." }) });
const ack = jsonResponse(
  z.object({
    ok: z.literal(true),
    stored: z.number().int().openapi({ description: "Conversations that got a new message (0 for a redelivery)." }),
  }),
  "Acknowledged: what is new is stored, to be answered after this response.",
);

const noChannel = () => new ApiError("not_found", "No such channel.");

async function channelOf(c: Context<AppEnv>, type: MessagingChannel["type"]): Promise<MessagingChannel> {
  const channel = await channelById(c.var.db, c.req.param("id") ?? "");
  if (channel?.type !== type) throw noChannel();
  return channel;
}

/**
 * An authenticated delivery's body: JSON, sent as application/json (what Telegram and Meta send;
 * any parameters, such as a charset, are fine). Checked after the delivery proved itself, so a
 * stranger learns nothing but 401.
 */
function jsonBody(c: Context<AppEnv>, text: string): unknown {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/json")
    throw new ApiError("unsupported_media_type", `Send the body as application/json (got ${type || "no Content-Type"}).`);
  try {
    return storable(JSON.parse(text));
  } catch {
    throw new ApiError("invalid_json", "The body is not JSON.");
  }
}

/** Stores what is new, acknowledges, and answers each conversation that got a message after the response. */
async function accept(c: Context<AppEnv>, channel: MessagingChannel, delivery: InboundDelivery) {
  if (delivery.problems.length > 0)
    console.warn(
      JSON.stringify({
        level: "warn",
        msg: "messaging: a delivery does not match the provider's format (acknowledged)",
        channelId: channel.id,
        requestId: c.var.requestId,
        problems: delivery.problems.slice(0, 10),
      }),
    );
  const deps = c.var.services.webhooks;
  const conversations = await receive(deps, channel, delivery.messages);
  for (const endUserId of conversations) c.var.defer(drainConversation(deps, channel.id, endUserId));
  return c.json({ ok: true as const, stored: conversations.length }, 200);
}

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

/** The messaging surface, mounted at /channels (src/app.ts). */
export function channelWebhookRoutes() {
  const app = createRouter();

  app.openapi(telegramUpdateRoute, async (c) => {
    const channel = await channelOf(c, "telegram");
    const { secretToken } = await openCredentials<TelegramCredentials>(c.var.config, channel);
    const given = c.req.header("x-telegram-bot-api-secret-token");
    if (!given || !safeEqual(given, secretToken))
      throw new ApiError("unauthorized", "The X-Telegram-Bot-Api-Secret-Token does not match this channel.");
    return accept(c, channel, parseTelegramUpdate(jsonBody(c, await c.req.text())));
  });

  app.openapi(whatsappVerifyRoute, async (c) => {
    const channel = await channelOf(c, "whatsapp");
    const { verifyToken } = await openCredentials<WhatsAppCredentials>(c.var.config, channel);
    const q = c.req.valid("query");
    if (q["hub.mode"] !== "subscribe" || !q["hub.verify_token"] || !safeEqual(q["hub.verify_token"], verifyToken))
      throw new ApiError("forbidden", "hub.verify_token is not this channel's verify token (or hub.mode is not subscribe).");
    return c.text(q["hub.challenge"] ?? "", 200);
  });

  app.openapi(whatsappNotificationRoute, async (c) => {
    const channel = await channelOf(c, "whatsapp");
    const { appSecret, phoneNumberId } = await openCredentials<WhatsAppCredentials>(c.var.config, channel);
    const raw = new Uint8Array(await c.req.arrayBuffer());
    if (!(await verifyWhatsAppSignature(appSecret, raw, c.req.header("x-hub-signature-256"))))
      throw new ApiError("unauthorized", "The X-Hub-Signature-256 does not match this body and the channel's app secret.");
    const body = jsonBody(c, new TextDecoder().decode(raw));
    return accept(c, channel, await parseWhatsAppNotification(body, phoneNumberId));
  });

  return app;
}
