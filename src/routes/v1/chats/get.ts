import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toChatView } from "../../../chats/mapper";
import { chatSchema } from "../../../chats/schema";
import { getChat } from "../../../chats/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";

export const getChatRoute = createRoute({
  method: "get",
  path: "/chats/{id}",
  readsAlongsideTheKeyCheck: true,
  tags: ["Chats"],
  operationId: "getChat",
  summary: "Read a chat (widget or messaging): status, times, transcript, cost",
  security: bearerSecurity,
  request: { params: idParam("Chat") },
  responses: { 200: jsonResponse(chatSchema, "The chat."), ...errorResponses(400, 404) },
});

export const registerGetChat = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getChatRoute, async (c) => {
    const { chat, usage, transcript } = await getChat({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.json(toChatView(chat, usage, transcript), 200);
  });
