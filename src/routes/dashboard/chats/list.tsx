/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { listAgentNames } from "../../../agents/service";
import { toChatSummary } from "../../../chats/mapper";
import { CHAT_CHANNELS, type ChatChannel, chatSearchSchema, type ListChatsQuery } from "../../../chats/schema";
import { listChats } from "../../../chats/service";
import type { AppEnv } from "../../../context";
import { BASE, ChatList, type FilterValues } from "../../../dashboard/chats/list";
import { shellOf } from "../../../dashboard/ui";
import { invalidInput } from "../../../lib/errors";
import { isUuid } from "../../../lib/ids";
import { listChannels } from "../../../messaging/channels";
import { listWidgets } from "../../../widgets/service";

const LIST_LIMIT = 50;
/** The filter offers the newest of each; a channel beyond them is still reached by its page's link. */
const CHANNEL_CHOICES = 100;

/** The list's filters as the form sent them; a value the form does not offer filters nothing; a search too long is a 400. */
function filtersOf(q: FilterValues): Omit<ListChatsQuery, "limit"> & { search?: string } {
  const search = chatSearchSchema.safeParse(q.search);
  if (!search.success)
    throw invalidInput(
      "query",
      search.error.issues.map((issue) => ({ ...issue, path: ["search"] })),
    );
  return {
    search: search.data || undefined,
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

/** GET /dashboard/chats: every chat of the workspace, filtered (a search finds message text too, each row showing where) and paged. */
export const registerListChatsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/", async (c) => {
    const shell = await shellOf(c, "Chats", "chats");
    const q: FilterValues = {
      search: c.req.query("search") ?? "",
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
    const chats = page.data.map(({ chat, usage, preview, match }) => ({
      ...toChatSummary(chat, usage),
      preview: preview ?? null,
      match: match ?? null,
    }));
    return c.html(<ChatList shell={shell} chats={chats} channels={channels} agents={agents} q={q} next={next} />);
  });
