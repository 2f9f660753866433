/** @jsxImportSource hono/jsx */
// Chats (everyone), under /dashboard/chats: every chat of the workspace (widget chats and messaging
// sessions, one read model: docs/chats.md) with filters and paging, and a chat's page with its
// transcript, cost and webhook deliveries. Reads through the chats service, as /v1/chats does.
import type { Context } from "hono";
import { listAgentNames } from "../../agents/service";
import { toChatSummary, toChatView } from "../../chats/mapper";
import { CHAT_CHANNELS, type ChatChannel, type ListChatsQuery } from "../../chats/schema";
import { getChat, listChats } from "../../chats/service";
import type { AppEnv } from "../../context";
import { isUuid } from "../../lib/ids";
import { findChannel, listChannels } from "../../messaging/channels";
import { deliveriesOf } from "../../webhooks/log";
import { getWidget, listWidgets } from "../../widgets/service";
import { screenRouter } from "../routers";
import { shellOf, when } from "../ui";
import { ChatPage } from "./detail";
import { BASE, ChatList, type FilterValues } from "./list";

const LIST_LIMIT = 50;
/** The filter offers the newest of each; a channel beyond them is still reached by its page's link. */
const CHANNEL_CHOICES = 100;

/** The list's filters as the form sent them; a value the form does not offer filters nothing. */
function filtersOf(q: FilterValues): Omit<ListChatsQuery, "limit"> {
  return {
    channel: (CHAT_CHANNELS as readonly string[]).includes(q.channel) ? (q.channel as ChatChannel) : undefined,
    channelId: isUuid(q.channel) ? q.channel : undefined,
    agentId: isUuid(q.agentId) ? q.agentId : undefined,
    status: q.status === "in-progress" || q.status === "completed" ? q.status : undefined,
  };
}

/** Every widget and messaging channel by name: the filter's choices, and the list's Channel column. */
async function channelNames(c: Context<AppEnv>) {
  const { ctx } = c.var;
  const [widgets, channels] = await Promise.all([
    listWidgets({ ctx, input: { limit: CHANNEL_CHOICES } }),
    listChannels({ ctx, input: { limit: CHANNEL_CHOICES } }),
  ]);
  return [
    ...widgets.data.map((w) => ({ id: w.id, type: "widget" as const, name: w.name })),
    ...channels.data.map((ch) => ({ id: ch.id, type: ch.type, name: ch.name })),
  ];
}

export function chatPages() {
  const app = screenRouter();

  app.get("/", async (c) => {
    const shell = await shellOf(c, "Chats", "chats");
    const q: FilterValues = {
      channel: c.req.query("channel") ?? "",
      agentId: c.req.query("agentId") ?? "",
      status: c.req.query("status") ?? "",
    };
    const [page, agents, channels] = await Promise.all([
      listChats({ ctx: c.var.ctx, input: { limit: LIST_LIMIT, cursor: c.req.query("cursor"), ...filtersOf(q) } }),
      listAgentNames({ ctx: c.var.ctx }),
      channelNames(c),
    ]);
    const kept = Object.entries(q).filter(([, v]) => v !== "");
    const next = page.nextCursor ? `${BASE}?${new URLSearchParams([...kept, ["cursor", page.nextCursor]])}` : null;
    const chats = page.data.map(({ chat, usage }) => toChatSummary(chat, usage));
    return c.html(<ChatList shell={shell} chats={chats} channels={channels} agents={agents} q={q} next={next} />);
  });

  app.get("/:id", async (c) => {
    const { db } = c.var;
    const org = c.var.auth.organizationId;
    const { chat, usage, transcript } = await getChat({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    const [deliveries, channel] = await Promise.all([
      deliveriesOf(db, org, chat.id),
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

  return app;
}
