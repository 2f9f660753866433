/** @jsxImportSource hono/jsx */
// A channel's page: what it is, the webhook URL (for WhatsApp, where to paste it in Meta's app),
// Test's outcome, and for admins Test, Pause/Resume, Remove and the settings form. And the
// removal's confirmation page.
import type { FC } from "hono/jsx";
import type { MessagingChannel } from "../../db/schema";
import type { ChannelView } from "../../messaging/mapper";
import type { ChannelCheck } from "../../messaging/schema";
import { AgentVersionField, Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Select, type Shell, TextField, When } from "../ui";
import { BASE, TYPE_LABELS } from "./connect";
import type { Values } from "./form";
import { ChannelStatus, handleOf } from "./list";

const CheckResult: FC<{ check: ChannelCheck }> = ({ check }) => (
  <Flash kind={check.ok ? "ok" : "error"}>
    <strong>Test {check.ok ? "passed" : "failed"}</strong> (<When at={check.checkedAt} />
    ): {check.detail}
    {check.webhook ? (
      <div class="small">
        Telegram reports the webhook at <code>{check.webhook.url ?? "nowhere"}</code>, {check.webhook.pendingUpdates ?? 0} update(s) waiting
        {check.webhook.lastError ? `, last error: ${check.webhook.lastError}` : ""}.
      </div>
    ) : null}
  </Flash>
);

const Facts: FC<{ channel: MessagingChannel; agentName: string | null }> = ({ channel, agentName }) => (
  <div class="card">
    <div class="grid2">
      <p class="m0">
        <strong>Type</strong> {TYPE_LABELS[channel.type]}
      </p>
      <p class="m0">
        <strong>Status</strong> <ChannelStatus status={channel.status} />
        {channel.status === "paused" ? <span class="small"> (messages are acknowledged and not answered)</span> : null}
      </p>
      <p>
        <strong>Agent</strong> <a href={`/dashboard/agents/${channel.agentId}`}>{agentName ?? channel.agentId}</a>
        {channel.agentVersion === null ? null : <span class="small"> (version {channel.agentVersion})</span>}
      </p>
      <p>
        <strong>{channel.type === "telegram" ? "Bot" : "Number"}</strong> <span class="mono">{handleOf(channel)}</span>
      </p>
      <p class="m0">
        <strong>Idle timeout</strong> {channel.idleTimeoutSeconds} s
      </p>
      <p class="m0">
        <strong>Connected</strong> <When at={channel.createdAt} />
      </p>
    </div>
    <p class="mt18 m0">
      <a href={`/dashboard/chats?channel=${channel.id}`}>This channel's chats</a>
    </p>
  </div>
);

const Webhook: FC<{ view: ChannelView }> = ({ view }) => (
  <div class="card">
    <h2 class="mt0">Webhook URL</h2>
    <div class="secret">
      <code id="webhook-url">{view.webhookUrl}</code>
      <button type="button" class="secondary" data-copy="webhook-url">
        Copy
      </button>
    </div>
    {view.type === "telegram" ? (
      <p class="hint">Set on the bot for you when the channel was connected, with a secret token Telegram sends back with every update.</p>
    ) : (
      <>
        <p>Meta does not let us set it: paste it into your app once.</p>
        <ol>
          <li>In your Meta app, open WhatsApp › Configuration, and Edit the webhook.</li>
          <li>Callback URL: the URL above.</li>
          <li>Verify token: the one you entered when you connected this channel (it is not shown again).</li>
          <li>Verify and save: Meta calls the URL, and this channel answers only with your verify token.</li>
          <li>
            Under Webhook fields, subscribe to <code>messages</code>.
          </li>
        </ol>
        <p class="hint">Then send the number a message: the agent answers, and the chat appears under Chats.</p>
      </>
    )}
  </div>
);

const Actions: FC<{ csrf: string; channel: MessagingChannel }> = ({ csrf, channel }) => (
  <div class="card row">
    <form method="post" action={`${BASE}/${channel.id}/test`}>
      <Csrf token={csrf} />
      <button type="submit">Test</button>
    </form>
    <form method="post" action={`${BASE}/${channel.id}/status`}>
      <Csrf token={csrf} />
      <input type="hidden" name="status" value={channel.status === "active" ? "paused" : "active"} />
      <button type="submit" class="secondary">
        {channel.status === "active" ? "Pause" : "Resume"}
      </button>
    </form>
    <form method="get" action={`${BASE}/${channel.id}/remove`}>
      <button type="submit" class="danger">
        Remove…
      </button>
    </form>
  </div>
);

const Settings: FC<{ csrf: string; channel: MessagingChannel; values: Values; errors: FieldErrors; agents: AgentChoice[] }> = (p) => (
  <>
    <h2>Settings</h2>
    <ErrorSummary errors={p.errors} />
    <form method="post" action={`${BASE}/${p.channel.id}`} class="card" novalidate>
      <Csrf token={p.csrf} />
      <div class="grid2">
        <TextField name="name" label="Name" value={p.values.name} errors={p.errors} required />
        <Select name="agentId" label="Agent" value={p.values.agentId} options={p.agents} errors={p.errors} />
        <AgentVersionField
          value={p.values.agentVersion}
          errors={p.errors}
          hint="Empty: its conversations run the live version, whatever is published later. A version's number (a draft too) keeps them on it."
        />
        <TextField
          name="idleTimeoutSeconds"
          label="Idle timeout (seconds)"
          type="number"
          value={p.values.idleTimeoutSeconds}
          errors={p.errors}
          hint="60 to 604800. Open conversations follow the new value too."
        />
      </div>
      <p class="hint">The credentials cannot be changed: remove the channel and connect it again with new ones.</p>
      <button type="submit">Save</button>
    </form>
  </>
);

type AgentChoice = { value: string; label: string };

export interface ChannelPageProps {
  shell: Shell;
  channel: MessagingChannel;
  view: ChannelView;
  agents: AgentChoice[];
  values: Values;
  errors?: FieldErrors;
  notice?: string;
  check?: ChannelCheck;
}

export const ChannelPage: FC<ChannelPageProps> = ({ shell, channel, view, agents, values, errors = {}, notice, check }) => (
  <Layout shell={shell}>
    <p class="muted small mt0">
      <a href={BASE}>← Channels</a>
    </p>
    {notice ? <Flash>{notice}</Flash> : null}
    {check ? <CheckResult check={check} /> : null}
    <Facts channel={channel} agentName={agents.find((a) => a.value === channel.agentId)?.label ?? null} />
    <Webhook view={view} />
    {shell.role === "admin" ? (
      <>
        <Actions csrf={shell.csrf} channel={channel} />
        <Settings csrf={shell.csrf} channel={channel} values={values} errors={errors} agents={agents} />
      </>
    ) : (
      <p class="muted">Only admins can test, pause, change or remove a channel.</p>
    )}
  </Layout>
);

/** The confirmation step before a channel is removed (a page, so it works without a script). */
export const RemovePage: FC<{ shell: Shell; channel: MessagingChannel }> = ({ shell, channel }) => (
  <Layout shell={shell}>
    <div class="card" role="alert">
      <h2 class="mt0">Remove "{channel.name}"?</h2>
      <ul>
        <li>
          Its open conversations end now (reason <code>channel-removed</code>, each with its <code>{channel.type}.completed</code> webhook).
        </li>
        {channel.type === "telegram" ? (
          <li>The bot's webhook is deleted: messages to {handleOf(channel)} go nowhere until it is connected again.</li>
        ) : (
          <li>Notifications Meta sends to its webhook URL are answered 404 from now on: change or remove the URL in your Meta app.</li>
        )}
        <li>Its credentials are erased. Its chats and their transcripts stay under Chats.</li>
      </ul>
      <form method="post" action={`${BASE}/${channel.id}/remove`} class="row">
        <Csrf token={shell.csrf} />
        <button type="submit" class="danger">
          Remove channel
        </button>
        <a class="button secondary" href={`${BASE}/${channel.id}`}>
          Cancel
        </a>
      </form>
    </div>
  </Layout>
);
