/** @jsxImportSource hono/jsx */
// The Chats list: every chat of the workspace (widget, Telegram, WhatsApp), newest first, each with
// the end user's first message, with filters (channel, agent, status, a search by message text, end
// user or chat id: a row found by a message shows it, the term marked) and a link to the older ones.
import type { FC } from "hono/jsx";
import { CHAT_CHANNELS, CHAT_STATUSES, type ChatChannel, type ChatSummaryView } from "../../chats/schema";
import type { MessageMatch } from "../../chats/service";
import { Badge, DataTable, EmptyState, Layout, Select, type Shell, TextField, When } from "../ui";

export const BASE = "/dashboard/chats";
export const CHANNEL_LABELS: Record<ChatChannel, string> = { widget: "Widget", telegram: "Telegram", whatsapp: "WhatsApp" };

export const ChatStatusBadge: FC<{ chat: Pick<ChatSummaryView, "status" | "endedReason"> }> = ({ chat }) =>
  chat.status === "in-progress" ? (
    <Badge>in progress</Badge>
  ) : (
    <Badge tone={chat.endedReason === "channel-removed" || chat.endedReason === "session-full" ? "off" : "good"}>
      {chat.endedReason ?? "completed"}
    </Badge>
  );

/** Who the agent talked to: the provider's name, else the id (a widget visitor is only an id). */
export const endUserOf = (chat: Pick<ChatSummaryView, "endUser">) => chat.endUser.name ?? chat.endUser.id;

/** The list's filters as the form sent them (query strings; "" is any). `channel` is a type or one channel's id. */
export type FilterValues = Record<"search" | "channel" | "agentId" | "status", string>;

export interface ChatListProps {
  shell: Shell;
  /** Each with the end user's first message (null before there is one) and, for a search, the message that has the term. */
  chats: Array<ChatSummaryView & { preview: string | null; match: MessageMatch | null }>;
  /** Every widget and messaging channel of the workspace, for the filter and the Channel column. */
  channels: Array<{ id: string; type: ChatChannel; name: string }>;
  agents: Array<{ id: string; name: string }>;
  q: FilterValues;
  /** The older page's address, when there is one. */
  next: string | null;
}

const Filters: FC<Pick<ChatListProps, "q" | "channels" | "agents">> = ({ q, channels, agents }) => (
  <form method="get" action={BASE} class="card row" aria-label="Filter chats">
    <div class="grow">
      <TextField
        name="search"
        label="Search"
        value={q.search}
        hint="Words from a message, part of the end user's name or id, or a whole chat id."
      />
    </div>
    <div class="grow">
      <Select
        name="channel"
        label="Channel"
        value={q.channel}
        options={[
          { value: "", label: "All channels" },
          ...CHAT_CHANNELS.map((t) => ({ value: t, label: `Every ${CHANNEL_LABELS[t]} chat` })),
          ...channels.map((ch) => ({ value: ch.id, label: `${CHANNEL_LABELS[ch.type]}: ${ch.name}` })),
        ]}
      />
    </div>
    <div class="grow">
      <Select
        name="agentId"
        label="Agent"
        value={q.agentId}
        options={[{ value: "", label: "All agents" }, ...agents.map((a) => ({ value: a.id, label: a.name }))]}
      />
    </div>
    <div class="w140">
      <Select
        name="status"
        label="Status"
        value={q.status}
        options={[{ value: "", label: "Any" }, ...CHAT_STATUSES.map((s) => ({ value: s, label: s }))]}
      />
    </div>
    <button type="submit" class="secondary end">
      Filter
    </button>
  </form>
);

/** The message a search found: who wrote it, and the excerpt with the term marked. */
const Match: FC<{ match: MessageMatch }> = ({ match }) => (
  <span class="preview">
    <span class="muted">{match.role === "user" ? "End user" : "Agent"}: </span>
    {match.before}
    {match.match ? <mark>{match.match}</mark> : null}
    {match.after}
  </span>
);

export const ChatList: FC<ChatListProps> = ({ shell, chats, channels, agents, q, next }) => {
  const names = new Map(channels.map((ch) => [ch.id, ch.name]));
  return (
    <Layout shell={shell}>
      <p class="muted small mt0">
        Conversations agents have in writing: on a website's widget, with a Telegram bot or a WhatsApp number. Newest first.
      </p>
      <Filters q={q} channels={channels} agents={agents} />
      <DataTable
        rows={chats}
        stack
        empty={
          Object.values(q).some(Boolean) ? (
            <EmptyState action={{ href: BASE, label: "Show all chats" }}>No chats match these filters.</EmptyState>
          ) : (
            <EmptyState action={{ href: "/dashboard/widgets", label: "Put an agent on a website" }}>
              No chats yet. They start with a visitor's first message to a widget, or an end user's to a{" "}
              <a href="/dashboard/channels">channel</a>.
            </EmptyState>
          )
        }
        columns={[
          {
            header: "Started",
            cell: (r) => (
              <a href={`${BASE}/${r.id}`}>
                <When at={r.startedAt} />
              </a>
            ),
          },
          {
            header: "Channel",
            label: "Channel",
            cell: (r) => (
              <>
                {CHANNEL_LABELS[r.channel]}
                {r.channelId && names.get(r.channelId) ? <div class="muted small">{names.get(r.channelId)}</div> : null}
              </>
            ),
          },
          {
            header: q.search.trim() ? "Message" : "First message",
            label: q.search.trim() ? "Message" : "First message",
            class: "small",
            cell: (r) =>
              r.match ? <Match match={r.match} /> : r.preview ? <span class="preview">{r.preview}</span> : <span class="muted">—</span>,
          },
          { header: "Agent", label: "Agent", cell: (r) => r.agentName },
          { header: "End user", label: "End user", class: "small", cell: endUserOf },
          { header: "Status", label: "Status", cell: (r) => <ChatStatusBadge chat={r} /> },
          { header: "Messages", label: "Messages", cell: (r) => r.messageCount },
          { header: "Cost", label: "Cost", class: "small", cell: (r) => `${r.cost.credits} credits` },
        ]}
      />
      {next ? (
        <p>
          <a href={next}>Older chats</a>
        </p>
      ) : null}
    </Layout>
  );
};
