/** @jsxImportSource hono/jsx */
// The Calls list: "place a test call", the filters (agent, status, type, direction, days, a number
// or an id), a page of calls with what they cost and how they went, older pages, and the CSV of
// every call the filters find.
import type { FC } from "hono/jsx";
import type { CallSummary } from "../../calls/service";
import { CALL_STATUSES } from "../../calls/states";
import { durationOf } from "../../calls/views";
import { CALL_DIRECTIONS } from "../../db/schema";
import { formatCredits as credits } from "../../lib/credits";
import {
  AgentVersionField,
  Badge,
  Csrf,
  DataTable,
  EmptyState,
  ErrorSummary,
  type FieldErrors,
  Layout,
  Select,
  type Shell,
  TextField,
  When,
} from "../ui";

/** The telephony sandbox's scripted callees (docs/sandbox.md): offered in the test-call form. */
const SANDBOX_NUMBERS = [
  { value: "+12025550100", label: "+12025550100: a short conversation" },
  { value: "+12025550101", label: "+12025550101: silent callee" },
  { value: "+12025550102", label: "+12025550102: busy" },
  { value: "+12025550103", label: "+12025550103: no answer" },
  { value: "+12025550106", label: "+12025550106: interrupts the agent" },
];

export const CallStatusBadge: FC<{ status: string }> = ({ status }) => (
  <Badge tone={status === "completed" ? "good" : status === "in-progress" || status === "ringing" || status === "queued" ? "" : "bad"}>
    {status}
  </Badge>
);

/** The list's filters, by their query names. */
export const FILTER_NAMES = ["search", "agentId", "status", "type", "direction", "from", "to"] as const;
/** The list's filters as the form sent them (query strings; "" is any). */
export type FilterValues = Record<(typeof FILTER_NAMES)[number], string>;

const ANY = { value: "", label: "Any" };
const options = (values: readonly string[]) => [ANY, ...values.map((v) => ({ value: v, label: v }))];

const TestCallForm: FC<{
  shell: Shell;
  agents: Array<{ id: string; name: string }>;
  callerIds: string[];
  sandbox: boolean;
  errors?: FieldErrors;
  values?: Record<string, string>;
}> = ({ shell, agents, callerIds, sandbox, errors, values }) => (
  <div class="card">
    <h2 class="mt0">Place a test call</h2>
    <p class="hint">
      {sandbox
        ? "Calls go to the local telephony sandbox, whose numbers answer as scripted callees."
        : "Calls go out through Twilio to a real phone: it rings, and the call is charged."}
    </p>
    <ErrorSummary errors={errors} />
    {agents.length === 0 ? (
      <p>
        A test call needs an agent to answer it. <a href="/dashboard/agents/new">Create an agent</a> first.
      </p>
    ) : null}
    <form method="post" action="/dashboard/calls/test" novalidate hidden={agents.length === 0}>
      <Csrf token={shell.csrf} />
      <div class="grid2">
        <Select
          name="agentId"
          label="Agent"
          value={values?.agentId ?? agents[0]?.id ?? ""}
          options={agents.map((a) => ({ value: a.id, label: a.name }))}
          errors={errors}
        />
        <TextField
          name="phoneNumber"
          label="Phone number (E.164)"
          value={values?.phoneNumber ?? (sandbox ? "+12025550100" : "")}
          errors={errors}
          hint={sandbox ? `Sandbox callees: ${SANDBOX_NUMBERS.map((n) => n.label).join("; ")}` : "The number to call."}
        />
        <Select
          name="fromNumber"
          label="From (caller id)"
          value={values?.fromNumber ?? ""}
          options={[
            { value: "", label: "Default: the workspace's first number, else the shared one" },
            ...callerIds.map((n) => ({ value: n, label: n })),
          ]}
          errors={errors}
        />
        <AgentVersionField
          value={values?.agentVersion ?? ""}
          errors={errors}
          hint="Empty: the live version. A version's number (a draft too) tries that version on a real call."
        />
      </div>
      <p>
        <button type="submit" disabled={agents.length === 0}>
          Place test call
        </button>
      </p>
    </form>
  </div>
);

const Filters: FC<{ q: FilterValues; agents: Array<{ id: string; name: string }> }> = ({ q, agents }) => (
  <form method="get" action="/dashboard/calls" class="card row" aria-label="Filter calls">
    <div class="grow">
      <TextField name="search" label="Number or call id" value={q.search} hint="Digits of the From or To number, or a whole call id." />
    </div>
    <div class="grow">
      <Select
        name="agentId"
        label="Agent"
        value={q.agentId}
        options={[{ value: "", label: "All agents" }, ...agents.map((a) => ({ value: a.id, label: a.name }))]}
      />
    </div>
    <div class="w140">
      <Select name="status" label="Status" value={q.status} options={options(CALL_STATUSES)} />
    </div>
    <div class="w120">
      <Select name="type" label="Type" value={q.type} options={options(["phone", "web"])} />
    </div>
    <div class="w140">
      <Select name="direction" label="Direction" value={q.direction} options={options(CALL_DIRECTIONS)} />
    </div>
    <div class="w140">
      <TextField name="from" label="From day" type="date" value={q.from} />
    </div>
    <div class="w140">
      <TextField name="to" label="To day" type="date" value={q.to} />
    </div>
    <button type="submit" class="secondary end">
      Filter
    </button>
  </form>
);

export interface CallListProps {
  shell: Shell;
  /** The workspace's numbers, then the platform's shared caller ids: the test call's From. */
  callerIds: string[];
  /** The carrier is the local telephony sandbox (not Twilio). */
  sandbox: boolean;
  calls: CallSummary[];
  /** The next (older) page, with the filters; null on the last. */
  next: string | null;
  /** The CSV of every call the filters find. */
  csv: string;
  agents: Array<{ id: string; name: string }>;
  q: FilterValues;
  errors?: FieldErrors;
  values?: Record<string, string>;
}

export const CallList: FC<CallListProps> = ({ shell, calls, agents, callerIds, sandbox, q, errors, values, next, csv }) => (
  <Layout shell={shell}>
    <TestCallForm shell={shell} agents={agents} callerIds={callerIds} sandbox={sandbox} errors={errors} values={values} />
    <Filters q={q} agents={agents} />
    <p class="row small">
      <a href={csv} download>
        Export CSV
      </a>
      <span class="muted">every call these filters find, not only this page</span>
    </p>
    <DataTable
      rows={calls}
      empty={
        Object.values(q).some(Boolean) ? (
          <EmptyState action={{ href: "/dashboard/calls", label: "Show all calls" }}>No calls match these filters.</EmptyState>
        ) : (
          <EmptyState>
            No calls yet. Place a test call above, or start one with <code>POST /v1/agents/{"{id}"}/calls</code>.
          </EmptyState>
        )
      }
      columns={[
        {
          header: "Created",
          cell: (r) => (
            <a href={`/dashboard/calls/${r.id}`}>
              <When at={r.createdAt} />
            </a>
          ),
        },
        { header: "Agent", cell: (r) => r.agentName },
        { header: "Type", cell: (r) => r.type },
        { header: "Number", class: "mono", cell: (r) => (r.direction === "inbound" ? r.fromNumber : r.toNumber) ?? "—" },
        { header: "Status", cell: (r) => <CallStatusBadge status={r.status} /> },
        { header: "Ended reason", class: "small", cell: (r) => r.endedReason ?? "" },
        {
          header: "Duration",
          cell: (r) => {
            const duration = durationOf(r);
            return duration !== null ? `${duration} s` : "—";
          },
        },
        { header: "Cost", cell: (r) => credits(r.costMicro) },
        { header: "Success", cell: (r) => (r.successScore === null ? "—" : `${Math.round(r.successScore * 100)}%`) },
        { header: "Sentiment", cell: (r) => r.sentiment ?? "—" },
      ]}
    />
    {next ? (
      <p>
        <a href={next}>Older calls</a>
      </p>
    ) : null}
  </Layout>
);
