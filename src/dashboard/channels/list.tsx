/** @jsxImportSource hono/jsx */
// The Channels list: each Telegram bot and WhatsApp number connected to an agent, with its state.
import type { FC } from "hono/jsx";
import type { MessagingChannel } from "../../db/schema";
import { Badge, DataTable, EmptyState, Flash, Layout, type Shell, When } from "../ui";
import { BASE, TYPE_LABELS } from "./connect";

/** The bot's @username or the business number, as the provider gave it at connection. */
export const handleOf = (c: Pick<MessagingChannel, "type" | "info">) =>
  c.type === "telegram"
    ? c.info.botUsername
      ? `@${c.info.botUsername}`
      : (c.info.botId ?? "—")
    : (c.info.displayPhoneNumber ?? c.info.phoneNumberId ?? "—");

export const ChannelStatus: FC<{ status: MessagingChannel["status"] }> = ({ status }) =>
  status === "active" ? <Badge tone="good">active</Badge> : <Badge tone="off">paused</Badge>;

export interface ChannelListProps {
  shell: Shell;
  channels: MessagingChannel[];
  agentNames: Map<string, string>;
  next: string | null;
  notice?: string;
}

export const ChannelList: FC<ChannelListProps> = ({ shell, channels, agentNames, next, notice }) => {
  const admin = shell.role === "admin";
  return (
    <Layout
      shell={shell}
      actions={
        admin ? (
          <a class="button" href={`${BASE}/new`}>
            Connect a channel
          </a>
        ) : null
      }
    >
      {notice ? <Flash>{notice}</Flash> : null}
      <p class="muted small mt0">
        Telegram bots and WhatsApp Business numbers whose messages an agent answers. Their conversations are under{" "}
        <a href="/dashboard/chats">Chats</a>.{admin ? "" : " Only admins can connect, test, pause or remove a channel."}
      </p>
      <DataTable
        rows={channels}
        stack
        empty={
          <EmptyState action={admin ? { href: `${BASE}/new`, label: "Connect a Telegram bot or a WhatsApp number" } : undefined}>
            No channels yet.
          </EmptyState>
        }
        columns={[
          { header: "Name", cell: (c) => <a href={`${BASE}/${c.id}`}>{c.name}</a> },
          { header: "Type", label: "Type", cell: (c) => TYPE_LABELS[c.type] },
          { header: "Agent", label: "Agent", cell: (c) => agentNames.get(c.agentId) ?? "—" },
          { header: "Status", label: "Status", cell: (c) => <ChannelStatus status={c.status} /> },
          { header: "Bot or number", label: "Bot or number", class: "mono", cell: handleOf },
          { header: "Created", label: "Created", cell: (c) => <When at={c.createdAt} /> },
        ]}
      />
      {next ? (
        <p>
          <a href={`${BASE}?cursor=${encodeURIComponent(next)}`}>Older channels</a>
        </p>
      ) : null}
    </Layout>
  );
};
