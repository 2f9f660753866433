/** @jsxImportSource hono/jsx */
// The Widgets screens: the list, and a widget's page (its embed code with a copy button, its
// token's state with rotate and revoke, the form with every field beside the live preview, delete).
import type { FC } from "hono/jsx";
import { WIDGET_MODES, WIDGET_POSITIONS } from "../../widgets/schema";
import type { Widget } from "../../widgets/service";
import {
  AgentVersionField,
  Badge,
  Csrf,
  DataTable,
  EmptyState,
  ErrorSummary,
  type FieldErrors,
  Flash,
  Layout,
  Select,
  type Shell,
  TextArea,
  TextField,
  When,
} from "../ui";
import { WIDGETS_CSS } from "../ui/assets/built";
import type { Values } from "./form";
import { type PreviewAgents, WidgetPreview } from "./preview";

type Choice = { value: string; label: string };

export const WidgetList: FC<{ shell: Shell; widgets: Widget[]; agentNames: Map<string, string>; notice?: string }> = ({
  shell,
  widgets,
  agentNames,
  notice,
}) => (
  <Layout
    shell={shell}
    actions={
      <a class="button" href="/dashboard/widgets/new">
        New widget
      </a>
    }
  >
    {notice ? <Flash>{notice}</Flash> : null}
    <DataTable
      rows={widgets}
      empty={<EmptyState action={{ href: "/dashboard/widgets/new", label: "Put an agent on a website" }}>No widgets yet.</EmptyState>}
      columns={[
        { header: "Name", cell: (w) => <a href={`/dashboard/widgets/${w.id}`}>{w.name}</a> },
        { header: "Agent", cell: (w) => agentNames.get(w.agentId) ?? "—" },
        { header: "Mode", cell: (w) => w.mode },
        { header: "Allowed origins", class: "small mono", cell: (w) => w.allowedOrigins.join(", ") },
        { header: "Status", cell: (w) => (w.revokedAt ? <Badge tone="bad">revoked</Badge> : <Badge tone="good">active</Badge>) },
      ]}
    />
  </Layout>
);

const EmbedCode: FC<{ csrf: string; widget: Widget; embed: string }> = ({ csrf, widget, embed }) => (
  <div class="card">
    <h2 class="mt0">Embed code</h2>
    <p class="hint">
      Paste this tag into each page on the allowed origins. The token is not an API key: it is safe in HTML and only reaches this widget.
    </p>
    <div class="secret">
      <code id="embed-code">{embed}</code>
      <button type="button" class="secondary" data-copy="embed-code">
        Copy
      </button>
    </div>
    <p>
      Status:{" "}
      {widget.revokedAt ? (
        <Badge tone="bad">
          revoked <When at={widget.revokedAt} />
        </Badge>
      ) : (
        <Badge tone="good">active</Badge>
      )}
      {widget.tokenRotatedAt ? (
        <span class="muted small">
          {" "}
          · token rotated <When at={widget.tokenRotatedAt} />
        </span>
      ) : null}
    </p>
    <div class="row">
      <form
        method="post"
        action={`/dashboard/widgets/${widget.id}/rotate-token`}
        data-confirm="Rotate the token? Pages with the old tag stop working until updated."
      >
        <Csrf token={csrf} />
        <button type="submit" class="secondary">
          {widget.revokedAt ? "Reactivate with a new token" : "Rotate token"}
        </button>
      </form>
      {widget.revokedAt ? null : (
        <form
          method="post"
          action={`/dashboard/widgets/${widget.id}/revoke`}
          data-confirm="Revoke the token? The widget stops answering at once."
        >
          <Csrf token={csrf} />
          <button type="submit" class="danger">
            Revoke
          </button>
        </form>
      )}
    </div>
  </div>
);

export interface WidgetFormProps {
  shell: Shell;
  /** With its embed code, when it exists. */
  widget: { row: Widget; embed: string } | null;
  values: Values;
  errors: FieldErrors;
  agents: Choice[];
  /** The agents' names and greetings, for the live preview (an existing widget's page). */
  previewAgents?: PreviewAgents;
  notice?: string;
}

export const WidgetForm: FC<WidgetFormProps> = ({ shell, widget, values, errors, agents, previewAgents, notice }) => (
  <Layout shell={shell} css={WIDGETS_CSS}>
    {notice ? <Flash>{notice}</Flash> : null}
    {widget ? <EmbedCode csrf={shell.csrf} widget={widget.row} embed={widget.embed} /> : null}
    <ErrorSummary errors={errors} />
    {widget ? (
      <div class="widget-edit">
        <Fields shell={shell} widget={widget.row} values={values} errors={errors} agents={agents} />
        <WidgetPreview nonce={shell.nonce} widget={widget.row} agents={previewAgents ?? {}} />
      </div>
    ) : (
      <Fields shell={shell} widget={null} values={values} errors={errors} agents={agents} />
    )}
    {widget ? (
      <form
        method="post"
        action={`/dashboard/widgets/${widget.row.id}/delete`}
        data-confirm={`Delete the widget "${widget.row.name}"?`}
        class="card"
      >
        <Csrf token={shell.csrf} />
        <button type="submit" class="danger">
          Delete widget
        </button>
      </form>
    ) : null}
  </Layout>
);

/** The form with every field (the preview follows its values: `data-widget-form`). */
const Fields: FC<{ shell: Shell; widget: Widget | null; values: Values; errors: FieldErrors; agents: Choice[] }> = ({
  shell,
  widget,
  values,
  errors,
  agents,
}) => (
  <form
    method="post"
    action={widget ? `/dashboard/widgets/${widget.id}` : "/dashboard/widgets"}
    class="card"
    novalidate
    data-widget-form=""
  >
    <Csrf token={shell.csrf} />
    <div class="grid2">
      <TextField name="name" label="Name" value={values.name} errors={errors} hint="For you; visitors never see it." required />
      <Select name="agentId" label="Agent" value={values.agentId} options={agents} errors={errors} />
      <AgentVersionField
        value={values.agentVersion}
        errors={errors}
        hint="Empty: its chats and calls run the live version, whatever is published later. A version's number (a draft too) keeps them on it."
      />
      <Select
        name="mode"
        label="Mode"
        value={values.mode}
        options={WIDGET_MODES.map((m) => ({ value: m, label: m === "both" ? "chat and voice" : m }))}
        errors={errors}
      />
      <Select
        name="position"
        label="Position"
        value={values.position}
        options={WIDGET_POSITIONS.map((p) => ({ value: p, label: p }))}
        errors={errors}
      />
    </div>
    <TextArea
      name="allowedOrigins"
      label="Allowed origins (one per line)"
      value={values.allowedOrigins}
      errors={errors}
      rows={3}
      hint="e.g. https://www.example.com, https://*.example.com, http://localhost:3000"
    />
    <div class="grid2">
      <TextField name="title" label="Title (optional)" value={values.title} errors={errors} hint="Empty: the agent's name." />
      <TextField
        name="greeting"
        label="Greeting (optional)"
        value={values.greeting}
        errors={errors}
        hint="Empty: the agent's first message."
      />
      <TextField name="accent" label="Accent colour" value={values.accent} errors={errors} />
      <TextField name="accentText" label="Text on accent" value={values.accentText} errors={errors} />
      <TextField name="background" label="Background colour" value={values.background} errors={errors} />
      <TextField name="text" label="Text colour" value={values.text} errors={errors} />
    </div>
    <p class="row">
      <button type="submit" disabled={agents.length === 0}>
        {widget ? "Save widget" : "Create widget"}
      </button>
      <a class="button secondary" href="/dashboard/widgets">
        Cancel
      </a>
    </p>
    {agents.length === 0 ? <p class="muted">Create an agent first: a widget puts an agent on a website.</p> : null}
  </form>
);
