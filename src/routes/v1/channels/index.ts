// /v1/channels: messaging channels (Telegram bots, WhatsApp Business numbers) connected to agents
// (docs/messaging.md). Credentials are write-only: sent on create, never returned.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { checkChannel, createChannel, deleteChannel, getChannel, listChannels, updateChannel } from "../../../messaging/channels";
import { toChannelView } from "../../../messaging/mapper";
import {
  channelCheckSchema,
  channelFiltersSchema,
  channelSchema,
  createChannelSchema,
  updateChannelSchema,
} from "../../../messaging/schema";

const tags = ["Channels"];
const channelPageSchema = pageSchema(channelSchema, "ChannelPage");

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
  responses: { 201: jsonResponse(channelSchema, "The connected channel."), ...errorResponses(400, 409, 502) },
});

export const listChannelsRoute = createRoute({
  method: "get",
  path: "/channels",
  tags,
  operationId: "listChannels",
  summary: "List the workspace's messaging channels",
  description: "Newest first. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: pageQuerySchema.extend(channelFiltersSchema.shape) },
  responses: { 200: jsonResponse(channelPageSchema, "A page of channels."), ...errorResponses(400) },
});

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

export const deleteChannelRoute = createRoute({
  method: "delete",
  path: "/channels/{id}",
  tags,
  operationId: "deleteChannel",
  summary: "Remove a channel",
  description:
    "Its open conversations end (`<type>.completed` with the transcript, reason `channel-removed`), a Telegram bot's webhook is deleted, and its credentials are erased. Transcripts stay.",
  security: bearerSecurity,
  request: { params: idParam("Channel") },
  responses: { 204: { description: "Removed." }, ...errorResponses(400, 404) },
});

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

export function registerChannels(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listChannelsRoute, async (c) => {
    const page = await listChannels({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map((row) => toChannelView(row, c.var.services.publicOrigin)) }, 200);
  });
  app.openapi(createChannelRoute, async (c) => {
    const row = await createChannel({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/channels/${row.id}`);
    return c.json(toChannelView(row, c.var.services.publicOrigin), 201);
  });
  app.openapi(getChannelRoute, async (c) => {
    const row = await getChannel({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.json(toChannelView(row, c.var.services.publicOrigin), 200);
  });
  app.openapi(updateChannelRoute, async (c) => {
    const row = await updateChannel({ ctx: c.var.ctx, input: { ...c.req.valid("json"), ...c.req.valid("param") } });
    return c.json(toChannelView(row, c.var.services.publicOrigin), 200);
  });
  app.openapi(deleteChannelRoute, async (c) => {
    await deleteChannel({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.body(null, 204);
  });
  app.openapi(checkChannelRoute, async (c) => c.json(await checkChannel({ ctx: c.var.ctx, input: c.req.valid("param") }), 200));
}
