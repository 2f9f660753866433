// What the providers' webhooks share: the channel the path names, the authenticated delivery's
// JSON body, and accepting a delivery (store what is new, acknowledge, answer after the response).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../context";
import type { MessagingChannel } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { jsonResponse } from "../../lib/openapi";
import { channelById } from "../../messaging/channels";
import { drainConversation, receive } from "../../messaging/inbound";
import { type InboundDelivery, storable } from "../../messaging/parsed";

export const tags = ["Channels (provider webhooks)"];
export const params = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The channel's id." }) });
export const ack = jsonResponse(
  z.object({
    ok: z.literal(true),
    stored: z.number().int().openapi({ description: "Conversations that got a new message (0 for a redelivery)." }),
  }),
  "Acknowledged: what is new is stored, to be answered after this response.",
);

const noChannel = () => new ApiError("not_found", "No such channel.");

export async function channelOf(c: Context<AppEnv>, type: MessagingChannel["type"]): Promise<MessagingChannel> {
  const channel = await channelById(c.var.db, c.req.param("id") ?? "");
  if (channel?.type !== type) throw noChannel();
  return channel;
}

/**
 * An authenticated delivery's body: JSON, sent as application/json (what Telegram and Meta send;
 * any parameters, such as a charset, are fine). Checked after the delivery proved itself, so a
 * stranger learns nothing but 401.
 */
export function jsonBody(c: Context<AppEnv>, text: string): unknown {
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
export async function accept(c: Context<AppEnv>, channel: MessagingChannel, delivery: InboundDelivery) {
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
