/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { toChatView } from "../../../chats/mapper";
import { getChat } from "../../../chats/service";
import type { AppEnv } from "../../../context";
import { ChatPage } from "../../../dashboard/chats/detail";
import { shellOf, when } from "../../../dashboard/ui";
import { findChannel } from "../../../messaging/channels";
import { deliveriesOf } from "../../../webhooks/log";
import { getWidget } from "../../../widgets/service";
import { replayChoices } from "../agents/replays";

/** The chat's page: its transcript, cost, webhook deliveries and replay form, with a flash (a refused replay). */
export async function renderChatPage(
  c: Context<AppEnv>,
  id: string,
  notice?: { kind: "error"; text: string },
  status: ContentfulStatusCode = 200,
) {
  const { chat, usage, transcript } = await getChat({ ctx: c.var.ctx, input: { id } });
  const [deliveries, channel, replay, shell] = await Promise.all([
    deliveriesOf({ ctx: c.var.ctx, input: { subjectId: chat.id } }),
    chat.widgetId
      ? getWidget({ ctx: c.var.ctx, input: { id: chat.widgetId } })
      : chat.channelId
        ? findChannel({ ctx: c.var.ctx, input: { id: chat.channelId } })
        : null,
    replayChoices(c, { agentId: chat.agentId, agentVersion: chat.agentVersion, transcript }),
    shellOf(c, `Chat ${when(chat.startedAt)}`, "chats"),
  ]);
  const view = toChatView(chat, usage, transcript);
  return c.html(
    <ChatPage shell={shell} chat={view} channelName={channel?.name ?? null} deliveries={deliveries} replay={replay} notice={notice} />,
    status,
  );
}

/** GET /dashboard/chats/:id: the chat's page, its transcript, cost and webhook deliveries. */
export const registerShowChatPage = (app: OpenAPIHono<AppEnv>) => app.get("/:id", (c) => renderChatPage(c, c.req.param("id")));
