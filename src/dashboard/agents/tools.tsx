/** @jsxImportSource hono/jsx */
// An agent's page, "Tools": the agent's tools as a list (a tool of yours editable, any removable),
// and the builder that adds or edits one with fields: name, description, URL, timeout, what the agent
// says while it runs and when it fails, and the parameters as rows (name, type, description,
// required, allowed values for text), with their JSON Schema as the advanced view. Each change is
// published, or saved as a draft, as the agent form's changes are. The form's Tools JSON stays the
// whole list's advanced view (and the way to add the built-ins). Posts to /dashboard/agents/:id/tools
// and …/tools/remove; the page's script (widget/src/agent-form.ts) adds rows and keeps the JSON view
// in step with the fields.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import { toolNameOf } from "../../agents/tool-list";
import { Csrf, ErrorSummary, type FieldErrors, TextArea, TextField } from "../ui";
import { shownRows, type ToolFormValues } from "./tool-form";
import { PARAM_TYPE_LABELS, PARAM_TYPES, type ParamRow } from "./tool-params";

const paramId = (i: number | string, field: string) => `f-param-${i}-${field}`;

/** "param.0.name" → "Parameter 1 name": the summary's words for a row's field. */
const summaryLabels = (errors: FieldErrors): Record<string, string> =>
  Object.fromEntries(
    Object.keys(errors).flatMap((k) => {
      const m = /^param\.(\d+)\.(\w+)$/.exec(k);
      return m ? [[k, `Parameter ${Number(m[1]) + 1} ${m[2] === "choices" ? "allowed values" : m[2]}`]] : [];
    }),
  );

/** One parameter's fields; `i` is its index (or the template's `__i__`, `n` its number shown). */
const ParamFields: FC<{ i: number | string; n: number | string; row: ParamRow; errors: FieldErrors }> = ({ i, n, row, errors }) => {
  const error = (field: string) => errors[`param.${i}.${field}`];
  const input = (field: "name" | "description" | "choices", label: string, placeholder: string, hint?: string) => (
    <div class={`param-${field}`} data-param-choices={field === "choices" ? "" : undefined}>
      <label for={paramId(i, field)}>
        <span class="sr">Parameter {n} </span>
        {label}
      </label>
      <input
        id={paramId(i, field)}
        name={`param.${i}.${field}`}
        type="text"
        value={row[field]}
        placeholder={placeholder}
        aria-invalid={error(field) ? "true" : undefined}
        aria-describedby={
          [hint ? `${paramId(i, field)}-hint` : "", error(field) ? `${paramId(i, field)}-error` : ""].filter(Boolean).join(" ") || undefined
        }
      />
      {hint ? (
        <p class="hint" id={`${paramId(i, field)}-hint`}>
          {hint}
        </p>
      ) : null}
      {error(field) ? (
        <p class="field-error" id={`${paramId(i, field)}-error`}>
          {error(field)}
        </p>
      ) : null}
    </div>
  );
  return (
    <fieldset class="param-row" data-param-row>
      <legend class="sr">Parameter {n}</legend>
      {input("name", "Name", "orderId")}
      <div class="param-type">
        <label for={paramId(i, "type")}>
          <span class="sr">Parameter {n} </span>Type
        </label>
        <select id={paramId(i, "type")} name={`param.${i}.type`} aria-invalid={error("type") ? "true" : undefined}>
          {PARAM_TYPES.map((t) => (
            <option value={t} selected={row.type === t}>
              {PARAM_TYPE_LABELS[t]}
            </option>
          ))}
        </select>
        {error("type") ? <p class="field-error">{error("type")}</p> : null}
      </div>
      <label class="check param-required" for={paramId(i, "required")}>
        <input type="checkbox" id={paramId(i, "required")} name={`param.${i}.required`} value="on" checked={row.required} />
        <span class="sr">Parameter {n} </span>Required
      </label>
      {input("description", "Description", "The order number, as the caller says it")}
      {input("choices", "Allowed values (text)", "small, medium, large", "Comma-separated; empty: any text.")}
      <button type="button" class="secondary small-button param-remove" data-param-remove hidden aria-label={`Remove parameter ${n}`}>
        Remove
      </button>
    </fieldset>
  );
};

/** The builder's parameters: a row per argument (one blank to add), a template for the script's "Add a parameter", and the JSON view. */
const Parameters: FC<{ values: ToolFormValues; errors: FieldErrors }> = ({ values, errors }) => {
  const rows = shownRows(values.rows);
  return (
    <>
      <fieldset class="params" data-param-rows>
        <legend>Parameters: what the model writes when it calls the tool</legend>
        <p class="hint mt0">One row per argument; leave a row empty to skip it. No row: the tool takes no arguments.</p>
        {rows.map((row, i) => (
          <ParamFields i={i} n={i + 1} row={row} errors={errors} />
        ))}
        <template data-param-template>
          <ParamFields i="__i__" n="__n__" row={{ name: "", type: "string", description: "", required: false, choices: "" }} errors={{}} />
        </template>
        <button type="button" class="secondary" data-param-add hidden>
          Add a parameter
        </button>
      </fieldset>
      <details class="advanced" open={values.asJson || Boolean(errors.toolParameters)} data-param-json>
        <summary>Advanced: the parameters as JSON Schema</summary>
        <label class="check" for="f-toolParamsAsJson">
          <input type="checkbox" id="f-toolParamsAsJson" name="toolParamsAsJson" value="1" checked={values.asJson} />
          Save this JSON Schema instead of the rows above
        </label>
        <p class="hint" data-param-json-note hidden>
          These parameters use more of JSON Schema than the rows can show: edit them here.
        </p>
        <TextArea
          name="toolParameters"
          label="Parameters (JSON Schema)"
          value={values.parametersJson}
          errors={errors}
          rows={6}
          hint='An object schema, e.g. {"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]}. It follows the rows as they are typed.'
        />
      </details>
    </>
  );
};

export interface ToolBuilderProps {
  agent: Agent;
  csrf: string;
  values: ToolFormValues;
  errors: FieldErrors;
}

export const ToolBuilder: FC<ToolBuilderProps> = ({ agent, csrf, values, errors }) => {
  const editing = values.original !== "";
  const base = `/dashboard/agents/${agent.id}`;
  return (
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
              <code>{toolNameOf(t)}</code>
              <span class="muted small">
                {t.type === "function"
                  ? `${t.url} · ${t.timeoutSeconds} s`
                  : t.type === "end_call"
                    ? "built-in: hangs up"
                    : t.type === "transfer_call"
                      ? "built-in: transfers the call"
                      : "built-in: presses keys"}
              </span>
              {t.type === "function" ? (
                <a
                  class="button secondary small-button"
                  href={`${base}?tool=${encodeURIComponent(t.name)}#tools`}
                  aria-label={`Edit ${t.name}`}
                >
                  Edit
                </a>
              ) : null}
              <form method="post" action={`${base}/tools/remove`} class="row" data-confirm={`Remove the tool ${toolNameOf(t)}?`}>
                <Csrf token={csrf} />
                <input type="hidden" name="name" value={toolNameOf(t)} />
                <button type="submit" class="secondary small-button" aria-label={`Remove ${toolNameOf(t)} and publish`}>
                  Remove
                </button>
                <button
                  type="submit"
                  name="draft"
                  value="1"
                  class="secondary small-button"
                  aria-label={`Remove ${toolNameOf(t)} in a draft`}
                >
                  Remove in a draft
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <form method="post" action={`${base}/tools#tools`} novalidate data-tool-builder>
        <h3>{editing ? `Edit the tool ${values.original}` : "Add a tool"}</h3>
        <ErrorSummary errors={errors} labels={summaryLabels(errors)} />
        <Csrf token={csrf} />
        <input type="hidden" name="toolOriginal" value={values.original} />
        <div class="grid2">
          <TextField name="toolName" label="Name" value={values.name} errors={errors} required placeholder="lookup_order" />
          <TextField
            name="toolUrl"
            label="URL (your server)"
            value={values.url}
            errors={errors}
            required
            placeholder="https://api.example.com/tools/order"
          />
        </div>
        <TextField
          name="toolDescription"
          label="Description"
          value={values.description}
          errors={errors}
          required
          hint="What it does and when to call it: the model reads this."
        />
        <Parameters values={values} errors={errors} />
        <div class="grid2">
          <TextField name="toolTimeout" label="Timeout (seconds)" type="number" value={values.timeout} errors={errors} />
          <TextField
            name="toolRequestStart"
            label="Said while it runs (optional)"
            value={values.requestStart}
            errors={errors}
            placeholder="One moment, let me check."
          />
          <TextField
            name="toolRequestFailed"
            label="Said when it fails (optional)"
            value={values.requestFailed}
            errors={errors}
            placeholder="Sorry, I could not check that."
          />
        </div>
        <p class="row">
          <button type="submit">Save and publish</button>
          <button type="submit" name="draft" value="1" class="secondary">
            Save as draft
          </button>
          {editing ? (
            <a class="button secondary" href={`${base}#tools`}>
              Cancel
            </a>
          ) : null}
        </p>
      </form>
    </section>
  );
};
