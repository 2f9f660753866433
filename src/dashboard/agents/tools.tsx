/** @jsxImportSource hono/jsx */
// An agent's page, "Tools": the agent's tools as a list (each removable), and a tool of yours added
// with fields: name, description, URL, timeout, the parameters' JSON Schema and what the agent says
// while it runs. The form's Tools JSON above stays the whole list's advanced view (and the way to
// add the built-ins). Posts to /dashboard/agents/:id/tools and …/tools/remove.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import { Csrf, ErrorSummary, type FieldErrors, TextArea, TextField } from "../ui";

/** The add-a-tool form's fields, as typed. */
export type ToolValues = Record<"toolName" | "toolDescription" | "toolUrl" | "toolTimeout" | "toolParameters" | "toolRequestStart", string>;

export const EMPTY_TOOL: ToolValues = {
  toolName: "",
  toolDescription: "",
  toolUrl: "",
  toolTimeout: "10",
  toolParameters: "",
  toolRequestStart: "",
};

const nameOf = (t: Agent["tools"][number]) => (t.type === "function" ? t.name : t.type);

export const ToolBuilder: FC<{ agent: Agent; csrf: string; values: ToolValues; errors: FieldErrors }> = ({
  agent,
  csrf,
  values,
  errors,
}) => (
  <section class="card" id="tools" aria-labelledby="tools-heading">
    <h2 id="tools-heading" class="mt0">
      Tools
    </h2>
    {agent.tools.length === 0 ? (
      <p class="muted small">No tools yet: the agent only talks. Add one of your server's functions below.</p>
    ) : (
      <ul class="plain-list tool-list">
        {agent.tools.map((t) => (
          <li class="row">
            <code>{nameOf(t)}</code>
            <span class="muted small">
              {t.type === "function"
                ? `${t.url} · ${t.timeoutSeconds} s`
                : t.type === "end_call"
                  ? "built-in: hangs up"
                  : "built-in: transfers the call"}
            </span>
            <form method="post" action={`/dashboard/agents/${agent.id}/tools/remove`} data-confirm={`Remove the tool ${nameOf(t)}?`}>
              <Csrf token={csrf} />
              <input type="hidden" name="name" value={nameOf(t)} />
              <button type="submit" class="secondary small-button" aria-label={`Remove ${nameOf(t)}`}>
                Remove
              </button>
            </form>
          </li>
        ))}
      </ul>
    )}
    <form method="post" action={`/dashboard/agents/${agent.id}/tools#tools`} novalidate>
      <h3>Add a tool</h3>
      <ErrorSummary errors={errors} />
      <Csrf token={csrf} />
      <div class="grid2">
        <TextField name="toolName" label="Name" value={values.toolName} errors={errors} required placeholder="lookup_order" />
        <TextField
          name="toolUrl"
          label="URL (your server)"
          value={values.toolUrl}
          errors={errors}
          required
          placeholder="https://api.example.com/tools/order"
        />
      </div>
      <TextField
        name="toolDescription"
        label="Description"
        value={values.toolDescription}
        errors={errors}
        required
        hint="What it does and when to call it: the model reads this."
      />
      <div class="grid2">
        <TextField name="toolTimeout" label="Timeout (seconds)" type="number" value={values.toolTimeout} errors={errors} />
        <TextField
          name="toolRequestStart"
          label="Said while it runs (optional)"
          value={values.toolRequestStart}
          errors={errors}
          placeholder="One moment, let me check."
        />
      </div>
      <TextArea
        name="toolParameters"
        label="Parameters (JSON Schema, optional)"
        value={values.toolParameters}
        errors={errors}
        rows={4}
        hint='e.g. {"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]}. Empty: no arguments.'
      />
      <p>
        <button type="submit">Add tool</button>
      </p>
    </form>
  </section>
);
