/** @jsxImportSource hono/jsx */
// "Connect a channel": the type picker (two links, so it works without a script), then the
// type's form: name, agent, idle timeout and the write-only credentials (password inputs, never
// filled in from the server, autocomplete off).
import type { FC } from "hono/jsx";
import type { ChannelType } from "../../db/schema";
import { DEFAULT_IDLE_TIMEOUT_SECONDS } from "../../messaging/schema";
import { AgentVersionField, Csrf, ErrorSummary, type FieldErrors, Layout, Select, type Shell, TextField } from "../ui";
import type { Values } from "./form";

export const BASE = "/dashboard/channels";
export const TYPE_LABELS: Record<ChannelType, string> = { telegram: "Telegram bot", whatsapp: "WhatsApp Business number" };

/** A write-only credential: type="password", autocomplete off, its value never rendered. */
const Credential: FC<{ name: string; label: string; hint: string; errors: FieldErrors; visible?: string }> = (p) => {
  const id = `f-${p.name}`;
  const error = p.errors[p.name];
  const described = [`${id}-hint`, error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div>
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type={p.visible === undefined ? "password" : "text"}
        value={p.visible}
        autocomplete="off"
        required
        aria-invalid={error ? "true" : undefined}
        aria-describedby={described}
      />
      <p class="hint" id={`${id}-hint`}>
        {p.hint}
      </p>
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
};

const TelegramFields: FC<{ errors: FieldErrors }> = ({ errors }) => (
  <Credential
    name="botToken"
    label="Bot token"
    errors={errors}
    hint="From @BotFather (/newbot or /token): 123456789:AA… The bot's webhook is pointed at this workspace when you connect; a bot answers one service at a time."
  />
);

const WhatsAppFields: FC<{ errors: FieldErrors; values: Values }> = ({ errors, values }) => (
  <div class="grid2">
    <Credential
      name="phoneNumberId"
      label="Phone number id"
      errors={errors}
      visible={values.phoneNumberId}
      hint="In your Meta app: WhatsApp › API Setup, the number's id (digits), not the phone number."
    />
    <Credential
      name="accessToken"
      label="Access token"
      errors={errors}
      hint="A system user's permanent token with whatsapp_business_messaging."
    />
    <Credential name="appSecret" label="App secret" errors={errors} hint="App settings › Basic: signs every notification Meta sends." />
    <Credential
      name="verifyToken"
      label="Verify token"
      errors={errors}
      hint="Any string of 8 or more characters you choose: you enter it again in Meta's webhook settings (next page)."
    />
  </div>
);

export interface ConnectProps {
  shell: Shell;
  type: ChannelType;
  values: Values;
  errors: FieldErrors;
  agents: Array<{ value: string; label: string }>;
}

export const ConnectForm: FC<ConnectProps> = ({ shell, type, values, errors, agents }) => (
  <Layout shell={shell}>
    <p class="muted small mt0">
      <a href={BASE}>← Channels</a>
    </p>
    <nav class="card row" aria-label="Channel type">
      <span>Connect a</span>
      {(["telegram", "whatsapp"] as const).map((t) => (
        <a class={t === type ? "button" : "button secondary"} href={`${BASE}/new?type=${t}`} aria-current={t === type ? "page" : undefined}>
          {TYPE_LABELS[t]}
        </a>
      ))}
    </nav>
    <ErrorSummary errors={errors} />
    <form method="post" action={BASE} class="card" novalidate>
      <Csrf token={shell.csrf} />
      <input type="hidden" name="type" value={type} />
      <h2 class="mt0">Connect a {TYPE_LABELS[type]}</h2>
      <div class="grid2">
        <TextField name="name" label="Name" value={values.name} errors={errors} hint="For you; end users never see it." required />
        <Select name="agentId" label="Agent" value={values.agentId} options={agents} errors={errors} hint="It answers every message." />
        <AgentVersionField
          value={values.agentVersion}
          errors={errors}
          hint="Empty: its conversations run the live version, whatever is published later. A version's number (a draft too) keeps them on it."
        />
        <TextField
          name="idleTimeoutSeconds"
          label="Idle timeout (seconds, optional)"
          type="number"
          value={values.idleTimeoutSeconds}
          errors={errors}
          hint={`A conversation with no message for this long ends. 60 to 604800; empty: ${DEFAULT_IDLE_TIMEOUT_SECONDS} (30 minutes).`}
        />
      </div>
      {type === "telegram" ? <TelegramFields errors={errors} /> : <WhatsAppFields errors={errors} values={values} />}
      <p class="hint">
        Credentials are checked with {type === "telegram" ? "Telegram" : "Meta"} before anything is saved, stored encrypted, and never shown
        again (not even on this form after an error: enter them again).
      </p>
      <p class="row">
        <button type="submit" disabled={agents.length === 0}>
          Connect
        </button>
        <a class="button secondary" href={BASE}>
          Cancel
        </a>
      </p>
      {agents.length === 0 ? (
        <p class="muted">
          A channel needs an agent to answer it. <a href="/dashboard/agents/new">Create an agent</a> first.
        </p>
      ) : null}
    </form>
  </Layout>
);
