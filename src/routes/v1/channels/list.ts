import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { pageQuerySchema, pageSchema } from "../../../lib/pagination";
import { listChannels } from "../../../messaging/channels";
import { toChannelView } from "../../../messaging/mapper";
import { channelFiltersSchema, channelSchema } from "../../../messaging/schema";
import { tags } from "./shared";

const channelPageSchema = pageSchema(channelSchema, "ChannelPage");

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

export const registerListChannels = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listChannelsRoute, async (c) => {
    const page = await listChannels({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map((row) => toChannelView(row, c.var.services.publicOrigin)) }, 200);
  });
