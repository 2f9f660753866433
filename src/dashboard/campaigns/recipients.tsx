/** @jsxImportSource hono/jsx */
// A campaign's recipients table: row (upload order), number, variables, state, attempts, last call
// (linked to its page), last ended reason; filtered by state, paged. The page's script
// (widget/src/campaign-page.ts) updates the rows it shows while the campaign runs, by the cells'
// `data-cell` names.
import type { FC } from "hono/jsx";
import { RECIPIENT_STATES, type RecipientState } from "../../db/schema";
import { Badge, Select } from "../ui";
import { type RecipientRow, STATE_LABELS } from "./format";

const RecipientTr: FC<{ row: RecipientRow }> = ({ row }) => (
  <tr data-recipient={row.id}>
    <td data-label="Row">{row.row}</td>
    <td data-label="Number" class="mono">
      {row.phoneNumber}
    </td>
    <td data-label="Variables" class="small recipient-variables">
      {row.variables || "—"}
    </td>
    <td data-label="State" data-cell="state">
      <Badge tone={row.stateTone}>{row.stateLabel}</Badge>
      {row.next ? <span class="small muted block">{row.next}</span> : null}
    </td>
    <td data-label="Attempts" data-cell="attempts">
      {row.attempts}
    </td>
    <td data-label="Last call" data-cell="lastCall">
      {row.lastCallId ? (
        <a href={`/dashboard/calls/${row.lastCallId}`} class="mono">
          {row.lastCallId.slice(0, 8)}
          <span class="sr"> (call of row {row.row})</span>
        </a>
      ) : (
        "—"
      )}
    </td>
    <td data-label="Ended reason" data-cell="lastEndedReason">
      {row.lastEndedReason}
    </td>
  </tr>
);

export const RecipientsTable: FC<{
  campaign: string;
  rows: RecipientRow[];
  state: RecipientState | "";
  next: string | null;
  first: string | null;
}> = ({ campaign, rows, state, next, first }) => (
  <section aria-labelledby="recipients-heading">
    <h2 id="recipients-heading">Recipients</h2>
    <form method="get" action={`/dashboard/campaigns/${campaign}`} class="row filters" aria-label="Filter recipients">
      <Select
        name="state"
        label="State"
        value={state}
        options={[{ value: "", label: "All states" }, ...RECIPIENT_STATES.map((s) => ({ value: s, label: STATE_LABELS[s] }))]}
      />
      <button type="submit" class="secondary end">
        Filter
      </button>
    </form>
    <section class="card table-wrap" tabindex={0} aria-label="Recipients table">
      {rows.length === 0 ? (
        <p class="empty muted">{state ? `No recipient is ${STATE_LABELS[state].toLowerCase()}.` : "No recipients."}</p>
      ) : (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Number</th>
              <th scope="col">Variables</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last call</th>
              <th scope="col">Ended reason</th>
            </tr>
          </thead>
          <tbody data-recipients-body>
            {rows.map((row) => (
              <RecipientTr row={row} />
            ))}
          </tbody>
        </table>
      )}
      {next || first ? (
        <p class="row mt18 m0">
          {first ? <a href={first}>First recipients</a> : null}
          {next ? <a href={next}>Next recipients</a> : null}
        </p>
      ) : null}
    </section>
  </section>
);
