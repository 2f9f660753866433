import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toChatSummary } from "../../../chats/mapper";
import { chatPageSchema, listChatsQuerySchema } from "../../../chats/schema";
import { listChats } from "../../../chats/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";

export const listChatsRoute = createRoute({
  method: "get",
  path: "/chats",
  readsAlongsideTheKeyCheck: true,
  tags: ["Chats"],
  operationId: "listChats",
  summary: "List the workspace's chats: widget chats and messaging sessions together",
  description:
    "Newest first, without transcripts (GET /v1/chats/{id} has it); filter by channel, channelId, agent, status and start time (createdAfter/createdBefore). See docs/chats.md and docs/pagination.md.",
  security: bearerSecurity,
  request: { query: listChatsQuerySchema },
  responses: { 200: jsonResponse(chatPageSchema, "A page of chats."), ...errorResponses(400) },
});

export const registerListChats = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listChatsRoute, async (c) => {
    const page = await listChats({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.json({ ...page, data: page.data.map(({ chat, usage }) => toChatSummary(chat, usage)) }, 200);
  });
