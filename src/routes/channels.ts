// The messaging providers' webhooks, one address per channel (docs/messaging.md). No API key;
// each delivery proves itself: Telegram's X-Telegram-Bot-Api-Secret-Token (the secret we gave
// setWebhook), WhatsApp's X-Hub-Signature-256 over the raw body (the app secret), and Meta's
// verification handshake (the verify token). A delivery that fails its check is refused with 401
// and nothing is stored. Accepted messages are stored and acknowledged at once; the replies are
// written after the response (src/messaging/inbound.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, createRouter } from "../context";
import type { MessagingChannel } from "../db/schema";
import { safeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { errorResponses, jsonResponse, publicSecurity } from "../lib/openapi";
import { channelById, openCredentials, type TelegramCredentials, type WhatsAppCredentials } from "../messaging/channels";
import { drainConversation, receive } from "../messaging/inbound";
import { parseTelegramUpdate, type TelegramUpdate } from "../messaging/telegram";
import { parseWhatsAppNotification, verifyWhatsAppSignature } from "../messaging/whatsapp";

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

/** Stores what is new, acknowledges, and answers each conversation that got a message after the response. */
async function accept(c: Context<AppEnv>, channel: MessagingChannel, parsed: Parameters<typeof receive>[2]) {
  const deps = c.var.services.webhooks;
  const conversations = await receive(deps, channel, parsed);
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
  responses: { 200: ack, ...errorResponses(400, 401, 404) },
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
  responses: { 200: ack, ...errorResponses(400, 401, 404) },
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
    let update: TelegramUpdate;
    try {
      update = (await c.req.json()) as TelegramUpdate;
    } catch {
      throw new ApiError("invalid_json", "The update is not JSON.");
    }
    if (typeof update?.update_id !== "number") throw new ApiError("validation_failed", "Invalid json: update_id: expected a number");
    const parsed = parseTelegramUpdate(update);
    return accept(c, channel, parsed ? [parsed] : []);
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
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      throw new ApiError("invalid_json", "The notification is not JSON.");
    }
    return accept(c, channel, parseWhatsAppNotification(body, phoneNumberId));
  });

  return app;
}
