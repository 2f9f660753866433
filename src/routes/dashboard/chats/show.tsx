/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { toChatView } from "../../../chats/mapper";
import { getChat } from "../../../chats/service";
import type { AppEnv } from "../../../context";
import { ChatPage } from "../../../dashboard/chats/detail";
import { shellOf, when } from "../../../dashboard/ui";
import { findChannel } from "../../../messaging/channels";
import { deliveriesOf } from "../../../webhooks/log";
import { getWidget } from "../../../widgets/service";

/** GET /dashboard/chats/:id: the chat's page, its transcript, cost and webhook deliveries. */
export const registerShowChatPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/:id", async (c) => {
    const { chat, usage, transcript } = await getChat({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    const [deliveries, channel] = await Promise.all([
      deliveriesOf({ ctx: c.var.ctx, input: { subjectId: chat.id } }),
      chat.widgetId
        ? getWidget({ ctx: c.var.ctx, input: { id: chat.widgetId } })
        : chat.channelId
          ? findChannel({ ctx: c.var.ctx, input: { id: chat.channelId } })
          : null,
    ]);
    const shell = await shellOf(c, `Chat ${when(chat.startedAt)}`, "chats");
    const view = toChatView(chat, usage, transcript);
    return c.html(<ChatPage shell={shell} chat={view} channelName={channel?.name ?? null} deliveries={deliveries} />);
  });
