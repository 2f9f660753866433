/** @jsxImportSource hono/jsx */
// The new campaign form: name, agent, caller ids, an optional schedule, retries, the most calls in
// flight (with the workspace's limit), and the recipients as a CSV file (or its text pasted). It
// posts to POST /dashboard/campaigns as multipart; a refusal comes back on the same form with what
// was typed, each recipient row's problem in a table (line, column, problem), and the file's text
// put in the text area so the rows can be fixed in place. Works without a script.
import type { Child, FC } from "hono/jsx";
import { DEFAULT_CAMPAIGN_CALLS_IN_FLIGHT, RETRY_LIMITS, RETRY_OUTCOMES } from "../../campaigns/schema";
import {
  AgentVersionField,
  Checkbox,
  Csrf,
  ErrorSummary,
  type FieldErrors,
  GroupError,
  Layout,
  Select,
  type Shell,
  TextArea,
  TextField,
} from "../ui";
import { CAMPAIGNS_CSS } from "../ui/assets/built";
import type { NewCampaignValues, RowIssue } from "./form";

export interface NewCampaignProps {
  shell: Shell;
  agents: Array<{ id: string; name: string }>;
  /** The workspace's phone numbers, then the platform's shared ones. */
  callerIds: Array<{ number: string; label: string }>;
  concurrency: { callsInFlight: number; maxCallsInFlight: number };
  values: NewCampaignValues;
  errors: FieldErrors;
  /** The recipients' problems, and the service's sentence that counts them all. */
  refused?: { rows: RowIssue[]; message: string };
}

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const OUTCOMES: Record<(typeof RETRY_OUTCOMES)[number], string> = {
  "no-answer": "No answer",
  busy: "Busy",
  failed: "Failed",
  voicemail: "Voicemail",
};
/** Suggestions for the time zone field (any IANA zone is taken). */
const ZONES = [
  "America/New_York",
  "America/Chicago",
  "America/Denver",
  "America/Los_Angeles",
  "America/Sao_Paulo",
  "Europe/London",
  "Europe/Paris",
  "Europe/Berlin",
  "Asia/Kolkata",
  "Asia/Singapore",
  "Asia/Tokyo",
  "Australia/Sydney",
  "UTC",
];

const SAMPLE = 'phone_number,timezone,first_name,appointment\n+14155550123,America/Los_Angeles,Ada,"Tuesday, 10:00"';

/** A fieldset of checkboxes with its error under it (its id is the one the error summary links). */
const Group: FC<{ name: string; legend: string; errors: FieldErrors; children?: Child; hint?: string }> = ({
  name,
  legend,
  errors,
  children,
  hint,
}) => (
  <fieldset id={`f-${name}`} aria-describedby={errors[name] ? `f-${name}-error` : undefined}>
    <legend>{legend}</legend>
    {hint ? <p class="hint mt0">{hint}</p> : null}
    <div class="checks">{children}</div>
    <GroupError name={name} errors={errors} />
  </fieldset>
);

export const RowIssues: FC<{ refused: { rows: RowIssue[]; message: string } }> = ({ refused }) => (
  <section class="card" aria-labelledby="row-issues-heading" data-row-issues>
    <h2 id="row-issues-heading" class="mt0">
      Problems in the recipients
    </h2>
    <p class="small">{refused.message}</p>
    <div class="table-wrap" tabindex={0}>
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Column</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {refused.rows.map((r) => (
            <tr>
              <td data-label="Line">{r.line ?? "—"}</td>
              <td data-label="Column" class="mono">
                {r.field}
              </td>
              <td data-label="Problem">{r.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </section>
);

export const NewCampaignPage: FC<NewCampaignProps> = ({ shell, agents, callerIds, concurrency, values: v, errors, refused }) => (
  <Layout
    shell={shell}
    css={CAMPAIGNS_CSS}
    actions={
      <a class="button secondary" href="/dashboard/campaigns">
        All campaigns
      </a>
    }
  >
    <ErrorSummary
      errors={errors}
      message={refused && Object.keys(errors).length === 0 ? "Nothing was created: the recipients have problems, listed below." : undefined}
    />
    {refused && refused.rows.length > 0 ? <RowIssues refused={refused} /> : null}
    <form method="post" action="/dashboard/campaigns" enctype="multipart/form-data" class="card" novalidate aria-labelledby="new-heading">
      <h2 id="new-heading" class="mt0">
        New campaign
      </h2>
      <p class="small muted">
        Created as a draft with all its recipients, or not at all: every problem is listed at once. Start it from its page.
      </p>
      <Csrf token={shell.csrf} />
      <TextField name="name" label="Name" value={v.name} errors={errors} required hint="e.g. March reminders" />
      {agents.length === 0 ? (
        <p class="small">
          No agents in this workspace yet: <a href="/dashboard/agents/new">create one</a> first.
        </p>
      ) : null}
      <Select
        name="agentId"
        label="Agent"
        value={v.agentId}
        errors={errors}
        hint="It talks on every call; each row's columns fill its {{variables}}."
        options={[{ value: "", label: "Choose an agent" }, ...agents.map((a) => ({ value: a.id, label: a.name }))]}
      />
      <AgentVersionField
        value={v.agentVersion}
        errors={errors}
        hint="Empty: each call runs the version live when it is dialled. A version's number (a draft too) keeps every call on it."
      />
      <Group name="fromNumbers" legend="Caller ids" errors={errors} hint="Used in turn. Add your own on Phone Numbers.">
        {callerIds.length === 0 ? <p class="small m0">No phone numbers: add one on Phone Numbers first.</p> : null}
        {callerIds.map((n) => (
          <Checkbox name="fromNumbers" value={n.number} label={n.label} checked={v.fromNumbers.includes(n.number)} />
        ))}
      </Group>

      <h3>Recipients</h3>
      <div>
        <label for="f-csv">CSV file</label>
        <input
          id="f-csv"
          name="csv"
          type="file"
          accept=".csv,text/csv"
          aria-invalid={errors.csv ? "true" : undefined}
          aria-describedby={errors.csv ? "f-csv-hint f-csv-error" : "f-csv-hint"}
        />
        <p class="hint" id="f-csv-hint">
          UTF-8, a header row: <code>phone_number</code> (E.164, with + and country code), an optional <code>timezone</code>, then a column
          per variable. Up to 10,000 rows.
        </p>
        {errors.csv ? (
          <p class="field-error" id="f-csv-error">
            {errors.csv}
          </p>
        ) : null}
      </div>
      <TextArea
        name="csvText"
        label="Or paste the rows"
        value={v.csvText}
        rows={v.csvText ? 8 : 3}
        hint={
          v.csvText && refused
            ? "The rows you sent: fix them here, or choose the corrected file (a file chosen wins)."
            : `The same CSV as text, e.g. ${SAMPLE}`
        }
      />

      <h3>Schedule</h3>
      <Checkbox name="scheduled" value="on" label="Only call on these days, between these times" checked={v.scheduled === "on"} />
      <Group name="days" legend="Days" errors={errors}>
        {WEEKDAYS.map((day, i) => (
          <Checkbox name="days" value={String(i + 1)} label={day} checked={v.days.includes(String(i + 1))} />
        ))}
      </Group>
      <div class="grid3">
        <TextField name="start" label="From" type="time" value={v.start} errors={errors} hint="HH:MM" />
        <TextField name="end" label="Until" type="time" value={v.end} errors={errors} hint="HH:MM, same day" />
        <TextField
          name="timezone"
          label="Time zone"
          value={v.timezone}
          errors={errors}
          list={ZONES}
          placeholder="America/New_York"
          hint="For rows without their own timezone."
        />
      </div>

      <h3>Retries and pace</h3>
      <div class="grid3">
        <TextField
          name="maxAttempts"
          label={`Attempts (1–${RETRY_LIMITS.maxAttempts})`}
          type="number"
          value={v.maxAttempts}
          errors={errors}
          hint="1: no retry."
        />
        <TextField
          name="delayMinutes"
          label="Minutes between attempts"
          type="number"
          value={v.delayMinutes}
          errors={errors}
          hint="1 minute to 7 days."
        />
        <TextField
          name="maxCallsInFlight"
          label="Most calls at once"
          type="number"
          value={v.maxCallsInFlight}
          errors={errors}
          hint={`1 to ${concurrency.maxCallsInFlight}, this workspace's limit (${concurrency.callsInFlight} in flight now). Empty: ${Math.min(DEFAULT_CAMPAIGN_CALLS_IN_FLIGHT, concurrency.maxCallsInFlight)}.`}
        />
      </div>
      <Group name="on" legend="Try again after" errors={errors}>
        {RETRY_OUTCOMES.map((o) => (
          <Checkbox name="on" value={o} label={OUTCOMES[o]} checked={v.on.includes(o)} />
        ))}
      </Group>
      <p class="row">
        <button type="submit">Create campaign</button>
      </p>
    </form>
  </Layout>
);
