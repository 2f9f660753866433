import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { deleteChannel } from "../../../messaging/channels";
import { tags } from "./shared";

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

export const registerDeleteChannel = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteChannelRoute, async (c) => {
    await deleteChannel({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.body(null, 204);
  });
