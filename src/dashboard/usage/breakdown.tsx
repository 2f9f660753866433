/** @jsxImportSource hono/jsx */
// The Usage screen's breakdowns over its range: a summary (credits used, requests, calls, connected
// minutes, chats), each agent's calls, minutes, chats and credits, and the range's calls by cost (a
// page at a time, the costliest first), each linked to its page. Data: src/usage/service.ts
// (getUsage's byAgent, callsByCost).
import type { FC } from "hono/jsx";
import { formatCredits } from "../../lib/credits";
import type { CostlyCallView, UsageReport } from "../../usage/mapper";
import { DataTable, When } from "../ui";

const count = (v: number) => v.toLocaleString("en-US");
/** Credits as the Overview shows them (two decimals from 1, two significant digits below). */
const credits = (v: number) => formatCredits(Math.round(v * 1_000_000));

type ByAgent = UsageReport["byAgent"];
type AgentRow = ByAgent["agents"][number];

/** The range's figures in one line of measures (a definition list: each name, then its value). */
/** "the last 30 days" → "The last 30 days". */
const capital = (label: string) => label.charAt(0).toUpperCase() + label.slice(1);

export const Summary: FC<{ report: UsageReport; label: string }> = ({ report, label }) => {
  const used = report.totals.reduce((n, t) => n + t.cost, 0);
  const requests = report.totals.reduce((n, t) => n + t.requests, 0);
  const { total } = report.byAgent;
  const items: Array<[string, string]> = [
    ["Credits used", credits(used)],
    ["Metered requests", count(requests)],
    ["Calls", count(total.calls)],
    ["Call minutes", count(total.minutes)],
    ["Chats", count(total.chats)],
  ];
  return (
    <section class="card" aria-labelledby="usage-summary">
      <h2 id="usage-summary" class="mt0">
        {capital(label)}
      </h2>
      <dl class="summary">
        {items.map(([name, value]) => (
          <div>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
};

const agentName = (a: AgentRow) =>
  a.agentId ? <a href={`/dashboard/agents/${a.agentId}`}>{a.agentName}</a> : <span>{a.agentName} (deleted)</span>;

/** Each agent's calls, minutes and chats with the credits they used; the calls and chats link to the agent's lists. */
export const ByAgentTable: FC<{ byAgent: ByAgent; label: string }> = ({ byAgent, label }) => (
  <>
    <h2 id="by-agent">By agent</h2>
    <p class="muted small">
      Calls that ended, their connected minutes and the chats started in {label} (UTC), with the credits each used. Requests made to the API
      directly belong to no agent.
    </p>
    <DataTable
      rows={byAgent.agents}
      caption={`Each agent, ${label}`}
      empty={<p class="muted m0">No agent has had a call or a chat in these days.</p>}
      columns={[
        { header: "Agent", cell: agentName },
        {
          header: "Calls",
          cell: (a) => (a.agentId && a.calls > 0 ? <a href={`/dashboard/calls?agentId=${a.agentId}`}>{count(a.calls)}</a> : count(a.calls)),
        },
        { header: "Call minutes", cell: (a) => count(a.minutes) },
        {
          header: "Chats",
          cell: (a) => (a.agentId && a.chats > 0 ? <a href={`/dashboard/chats?agentId=${a.agentId}`}>{count(a.chats)}</a> : count(a.chats)),
        },
        { header: "Call credits", cell: (a) => credits(a.credits.calls) },
        { header: "Chat credits", cell: (a) => credits(a.credits.chats) },
        { header: "Credits", cell: (a) => <strong>{credits(a.credits.total)}</strong> },
      ]}
    />
  </>
);

/** The range's calls, costliest first, a page at a time; each linked to its page. */
export const CallsByCostTable: FC<{ calls: CostlyCallView[]; label: string; first: boolean; more: string | null }> = ({
  calls,
  label,
  first,
  more,
}) => (
  <>
    <h2 id="calls">Calls by cost</h2>
    <p class="muted small">
      Every call that ended in {label}, the costliest first, with its connected minutes and credits; each links to its page.
      {first ? null : " (A later page: the costliest are on the first.)"}
    </p>
    <DataTable
      rows={calls}
      caption={`Calls by cost, ${label}`}
      empty={<p class="muted m0">No call ended in these days.</p>}
      columns={[
        {
          header: "Call",
          cell: (c) => (
            <a href={`/dashboard/calls/${c.id}`}>
              <When at={c.createdAt} />
            </a>
          ),
        },
        { header: "Agent", cell: (c) => c.agentName },
        { header: "Type", class: "small", cell: (c) => (c.type === "web" ? "web" : `phone, ${c.direction}`) },
        { header: "Status", class: "small", cell: (c) => c.status },
        { header: "Minutes", cell: (c) => count(c.minutes) },
        { header: "Credits", cell: (c) => credits(c.credits) },
      ]}
    />
    {more ? (
      <p>
        <a href={more}>More calls</a>
      </p>
    ) : null}
  </>
);
