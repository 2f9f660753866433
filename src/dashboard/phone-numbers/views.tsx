/** @jsxImportSource hono/jsx */
// The Phone Numbers screen: the workspace's caller ids (a number of the platform's Twilio account,
// or one verified there) and the agent each inbound number goes to, the platform's shared caller
// ids, and (admins) adding, re-routing and removing numbers. docs/calls.md, "Caller ids".
import type { FC } from "hono/jsx";
import type { PhoneNumber } from "../../db/schema";
import { Csrf, DataTable, EmptyState, ErrorSummary, type FieldErrors, Flash, Layout, Select, type Shell, TextField, When } from "../ui";

export const BASE = "/dashboard/phone-numbers";

export interface PhoneNumbersProps {
  shell: Shell;
  numbers: PhoneNumber[];
  agents: Array<{ id: string; name: string }>;
  shared: readonly string[];
  /** The carrier: Twilio, or a stand-in (the local telephony sandbox) at this URL. */
  carrier: { sandbox: boolean; url: string };
  errors?: FieldErrors;
  values?: Record<string, string>;
  notice?: string;
}

const agentOptions = (agents: PhoneNumbersProps["agents"]) => [
  { value: "", label: "No agent: turn calls away" },
  ...agents.map((a) => ({ value: a.id, label: a.name })),
];

export const PhoneNumbersPage: FC<PhoneNumbersProps> = ({ shell, numbers, agents, shared, carrier, errors, values, notice }) => {
  const admin = shell.role === "admin";
  const name = (id: string | null) => agents.find((a) => a.id === id)?.name;
  return (
    <Layout shell={shell}>
      {notice ? <Flash>{notice}</Flash> : null}
      <p class="muted small mt0">
        {carrier.sandbox
          ? `Calls go through a Twilio stand-in (${carrier.url}): the local telephony sandbox, whose numbers answer as scripted callees (docs/sandbox.md).`
          : "Calls go through the platform's Twilio account. A number added here must be one of that account's numbers, or a caller id verified in it."}
      </p>
      <DataTable
        rows={numbers}
        empty={<EmptyState>No phone numbers yet. Calls go out from the shared caller ids below.</EmptyState>}
        columns={[
          { header: "Number", class: "mono", cell: (n) => n.number },
          { header: "Label", cell: (n) => n.label ?? <span class="muted">—</span> },
          {
            header: "Inbound calls go to",
            cell: (n) =>
              admin ? (
                <form method="post" action={`${BASE}/${n.id}`} class="row" aria-label={`Route ${n.number}`}>
                  <Csrf token={shell.csrf} />
                  <label class="sr" for={`agent-${n.id}`}>
                    Agent for {n.number}
                  </label>
                  <select id={`agent-${n.id}`} name="agentId" class="w-auto">
                    {agentOptions(agents).map((o) => (
                      <option value={o.value} selected={o.value === (n.agentId ?? "")}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                  <button type="submit" class="secondary">
                    Save
                  </button>
                </form>
              ) : (
                (name(n.agentId) ?? <span class="muted">no agent (turned away)</span>)
              ),
          },
          { header: "Added", cell: (n) => <When at={n.createdAt} /> },
          {
            header: <span class="sr">Remove</span>,
            cell: (n) =>
              admin ? (
                <form
                  method="post"
                  action={`${BASE}/${n.id}/remove`}
                  data-confirm={`Remove ${n.number}? Calls can no longer come from it or to it.`}
                >
                  <Csrf token={shell.csrf} />
                  <button type="submit" class="danger" aria-label={`Remove ${n.number}`}>
                    Remove
                  </button>
                </form>
              ) : null,
          },
        ]}
      />
      {admin ? (
        <form method="post" action={BASE} class="card" novalidate>
          <h2 class="mt0">Add a number</h2>
          <ErrorSummary errors={errors ?? {}} />
          <Csrf token={shell.csrf} />
          <div class="grid2">
            <TextField
              name="number"
              label="Number (E.164)"
              value={values?.number ?? ""}
              errors={errors}
              required
              placeholder="+14155550100"
            />
            <TextField name="label" label="Label" value={values?.label ?? ""} errors={errors} placeholder="Main line" />
            <Select
              name="agentId"
              label="Inbound calls go to"
              value={values?.agentId ?? ""}
              options={agentOptions(agents)}
              errors={errors}
            />
          </div>
          <p>
            <button type="submit">Add number</button>
          </p>
        </form>
      ) : (
        <p class="muted small">Admins add, route and remove numbers.</p>
      )}
      <h2>Shared caller ids</h2>
      {shared.length ? (
        <ul class="plain-list mono">
          {shared.map((n) => (
            <li>{n}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">None: this deployment has no TWILIO_FROM_NUMBERS.</p>
      )}
      <p class="muted small">Every workspace may call from these (fromNumber); calls to them do not reach a workspace's agent.</p>
    </Layout>
  );
};
