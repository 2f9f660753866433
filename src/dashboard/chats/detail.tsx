/** @jsxImportSource hono/jsx */
// A chat's page: its channel, agent, end user, status and times, what it cost, the transcript
// (voice notes, unsupported messages and undelivered replies marked), "Replay against a version"
// (../agent-tests/replay-form.tsx), and its webhook deliveries.
import type { FC } from "hono/jsx";
import type { ChatView } from "../../chats/schema";
import type { SubjectDelivery } from "../../webhooks/log";
import { type ReplayChoices, ReplayForm } from "../agent-tests/replay-form";
import { Badge, clock, DataTable, EmptyState, Flash, Layout, type Shell, ToolOutcome, When, when } from "../ui";
import { BASE, CHANNEL_LABELS, ChatStatusBadge } from "./list";

type Turn = ChatView["transcript"]["turns"][number];

const channelHref = (chat: ChatView) =>
  chat.channelId ? `/dashboard/${chat.channel === "widget" ? "widgets" : "channels"}/${chat.channelId}` : null;

const Facts: FC<{ chat: ChatView; channelName: string | null }> = ({ chat, channelName }) => {
  const href = channelHref(chat);
  const { cost } = chat;
  return (
    <div class="card">
      <div class="grid2">
        <p class="m0">
          <strong>Status</strong> <ChatStatusBadge chat={chat} />
        </p>
        <p class="m0">
          <strong>Channel</strong> {CHANNEL_LABELS[chat.channel]}
          {href ? (
            <>
              {": "}
              <a href={href}>{channelName ?? "open"}</a>
            </>
          ) : (
            <span class="muted small"> (since removed)</span>
          )}
        </p>
        <p>
          <strong>Agent</strong> {chat.agentId ? <a href={`/dashboard/agents/${chat.agentId}`}>{chat.agentName}</a> : chat.agentName}
          {chat.agentVersion ? <span class="muted"> (version {chat.agentVersion})</span> : null}
        </p>
        <p>
          <strong>End user</strong> {chat.endUser.name ? `${chat.endUser.name} ` : null}
          <span class="mono small">{chat.endUser.id}</span>
          {chat.endUser.origin ? <span class="small"> on {chat.endUser.origin}</span> : null}
        </p>
        <p class="m0">
          <strong>Started</strong> <When at={chat.startedAt} /> · <strong>Ended</strong> <When at={chat.endedAt} />
        </p>
        <p class="m0">
          <strong>Messages</strong> {chat.messageCount} · <strong>Tool calls</strong> {chat.toolCallCount} · <strong>Last</strong>{" "}
          <When at={chat.lastActivityAt} />
        </p>
      </div>
      <p class="mt18 m0">
        <strong>Cost</strong> {cost.credits} credits for {cost.requests} metered use(s): LLM {cost.llm.quantity} tokens, STT{" "}
        {cost.stt.quantity} s, TTS {cost.tts.quantity} characters
      </p>
    </div>
  );
};

/**
 * When a message was written: the clock in UTC, as a call's transcript shows its turns (the date
 * too when it is not the day the chat started: a chat can be taken up again days later).
 */
const stamp = (chat: ChatView, t: Turn) => (t.at.slice(0, 10) === chat.startedAt.slice(0, 10) ? clock(t.at) : when(t.at));

const TurnMarks: FC<{ turn: Turn }> = ({ turn }) => (
  <>
    {turn.kind === "voice" ? <Badge>voice note, transcribed</Badge> : null}
    {turn.kind === "unsupported" ? <Badge tone="off">unsupported message</Badge> : null}
    {turn.tool ? <ToolOutcome tool={turn.tool} /> : null}
    {turn.undelivered ? (
      <>
        <Badge tone="bad">not delivered</Badge> <span class="small">{turn.undelivered}</span>
      </>
    ) : null}
  </>
);

const Transcript: FC<{ chat: ChatView }> = ({ chat }) => (
  <div class="card">
    {chat.transcript.turns.length === 0 ? (
      <p class="muted">No messages.</p>
    ) : (
      <ol class="turns">
        {chat.transcript.turns.map((t) => (
          <li>
            <span class="role">{t.role === "agent" ? "Agent" : t.role === "tool" ? "Tool" : "User"}</span>
            <time class="muted small" datetime={new Date(t.at).toISOString()}>
              {stamp(chat, t)}
            </time>{" "}
            {t.text} <TurnMarks turn={t} />
          </li>
        ))}
      </ol>
    )}
  </div>
);

export interface ChatPageProps {
  shell: Shell;
  chat: ChatView;
  channelName: string | null;
  deliveries: SubjectDelivery[];
  /** "Replay against a version" (a chat of an agent that still exists, with a user turn); null: none. */
  replay?: ReplayChoices | null;
  /** A refused replay, in the service's words. */
  notice?: { kind: "error"; text: string };
}

export const ChatPage: FC<ChatPageProps> = ({ shell, chat, channelName, deliveries, replay, notice }) => (
  <Layout shell={shell}>
    {notice ? <Flash kind={notice.kind}>{notice.text}</Flash> : null}
    <p class="muted small mt0">
      <a href={BASE}>← Chats</a>
    </p>
    {chat.status === "in-progress" ? (
      <Flash kind="warn">
        This chat is in progress. <a href={`${BASE}/${chat.id}`}>Refresh</a> to follow it.
      </Flash>
    ) : null}
    <Facts chat={chat} channelName={channelName} />
    <h2>Transcript</h2>
    <Transcript chat={chat} />
    {replay ? <ReplayForm action={`${BASE}/${chat.id}/replay`} what="chat" choices={replay} csrf={shell.csrf} /> : null}
    <h2>Webhook deliveries of this chat</h2>
    <DataTable
      rows={deliveries}
      empty={<EmptyState muted>None (no endpoint subscribes to the events of this chat's channel, or none fired yet).</EmptyState>}
      columns={[
        { header: "Event", class: "mono", cell: (d) => d.event },
        {
          header: "Endpoint",
          cell: (d) => (shell.role === "admin" ? <a href={`/dashboard/webhooks/${d.endpointId}`}>{d.endpointName}</a> : d.endpointName),
        },
        { header: "Status", cell: (d) => d.status },
        { header: "Attempts", cell: (d) => d.attempts },
        { header: "Created", cell: (d) => <When at={d.createdAt} /> },
      ]}
    />
  </Layout>
);
