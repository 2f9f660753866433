/** @jsxImportSource hono/jsx */
// Form fields: every field has a label, keeps what the user typed and shows its error inline
// (linked from the summary at the top); every form carries the CSRF token.
import type { FC } from "hono/jsx";
import { CSRF_FIELD } from "../session";

/** Problems by field name (`form` for the form as a whole). */
export type FieldErrors = Record<string, string>;

export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name={CSRF_FIELD} value={token} />;

/** `testUrl` → "Test url", `analysisPlan.successCriteria` → "Success criteria": the field as a person reads it. */
const humanize = (key: string) => {
  const last =
    key
      .split(".")
      .filter((p) => !/^\d+$/.test(p))
      .pop() ?? key;
  const words = last.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

interface FieldProps {
  name: string;
  label: string;
  value?: string | number | null;
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
}

const Hint: FC<{ id: string; hint?: string; error?: string }> = ({ id, hint, error }) => (
  <>
    {hint ? (
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    ) : null}
    {error ? (
      <p class="field-error" id={`${id}-error`}>
        {error}
      </p>
    ) : null}
  </>
);

const describedBy = (id: string, hint?: string, error?: string) =>
  [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;

/** `list`: suggestions the browser offers as the user types (a <datalist>); any other value is still taken. */
export const TextField: FC<FieldProps & { type?: string; placeholder?: string; step?: string; list?: string[] }> = (p) => {
  const id = fieldId(p.name);
  const error = p.errors?.[p.name];
  const listId = p.list?.length ? `${id}-options` : undefined;
  return (
    <div>
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type={p.type ?? "text"}
        value={p.value ?? ""}
        required={p.required}
        placeholder={p.placeholder}
        step={p.step}
        list={listId}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(id, p.hint, error)}
      />
      {listId ? (
        <datalist id={listId}>
          {p.list?.map((option) => (
            <option value={option} />
          ))}
        </datalist>
      ) : null}
      <Hint id={id} hint={p.hint} error={error} />
    </div>
  );
};

export const TextArea: FC<FieldProps & { rows?: number }> = (p) => {
  const id = fieldId(p.name);
  const error = p.errors?.[p.name];
  return (
    <div>
      <label for={id}>{p.label}</label>
      <textarea
        id={id}
        name={p.name}
        rows={p.rows ?? 4}
        required={p.required}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(id, p.hint, error)}
      >
        {p.value ?? ""}
      </textarea>
      <Hint id={id} hint={p.hint} error={error} />
    </div>
  );
};

export const Select: FC<FieldProps & { options: Array<{ value: string; label: string }> }> = (p) => {
  const id = fieldId(p.name);
  const error = p.errors?.[p.name];
  return (
    <div>
      <label for={id}>{p.label}</label>
      <select id={id} name={p.name} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy(id, p.hint, error)}>
        {p.options.map((o) => (
          <option value={o.value} selected={String(p.value ?? "") === o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Hint id={id} hint={p.hint} error={error} />
    </div>
  );
};

export const Checkbox: FC<{ name: string; label: string; checked?: boolean; value?: string }> = (p) => {
  const id = fieldId(`${p.name}-${p.value ?? "on"}`);
  return (
    <label class="check" for={id}>
      <input type="checkbox" id={id} name={p.name} value={p.value ?? "on"} checked={p.checked} />
      {p.label}
    </label>
  );
};

/** A group's error (a fieldset of checkboxes), under the group. */
export const GroupError: FC<{ name: string; errors: FieldErrors }> = ({ name, errors }) =>
  errors[name] ? (
    <p class="field-error group-error" id={`${fieldId(name)}-error`}>
      {errors[name]}
    </p>
  ) : null;

/** Form-level errors, listed at the top so a screen reader hears them first; `labels` names a field the key does not say well. */
export const ErrorSummary: FC<{ errors?: FieldErrors; message?: string; labels?: Record<string, string> }> = ({
  errors,
  message,
  labels,
}) => {
  const entries = Object.entries(errors ?? {});
  if (!message && entries.length === 0) return null;
  return (
    <div class="flash error" role="alert">
      <strong>{message ?? "Please correct the fields below."}</strong>
      {entries.length > 0 ? (
        <ul>
          {entries.map(([k, v]) => (
            <li>
              <a href={`#${fieldId(k)}`}>{labels?.[k] ?? humanize(k)}</a>: {v}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

/**
 * The "Agent version" field of the forms that run an agent (a widget, a channel, a campaign): empty
 * for the live version (docs/agents.md, "Versions").
 */
export const AgentVersionField: FC<{ value: string; errors?: FieldErrors; hint: string }> = ({ value, errors, hint }) => (
  <TextField
    name="agentVersion"
    label="Agent version (optional)"
    type="number"
    step="1"
    placeholder="Live version"
    value={value}
    errors={errors}
    hint={hint}
  />
);
