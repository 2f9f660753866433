/** @jsxImportSource hono/jsx */
// The Overview screen (/dashboard): the workspace's last 30 days at a glance, a chart per measure
// (calls, minutes, chats, what the calls cost, success, voice-to-voice latency), and the same per
// agent. A workspace with nothing yet is told where to start. Data: src/overview/service.ts.
import type { FC } from "hono/jsx";
import { formatCredits as credits } from "../../lib/credits";
import type { Overview, OverviewRow } from "../../overview/service";
import { DataTable, DayChart, EmptyState, Layout, type Shell } from "../ui";
import { OVERVIEW_CSS } from "../ui/assets/built";

const count = (v: number) => v.toLocaleString("en-US");
const percent = (v: number | null) => (v === null ? "–" : `${Math.round(v * 100)}%`);
const ms = (v: number | null) => (v === null ? "–" : `${count(v)} ms`);
const latency = (r: OverviewRow) => (r.voiceToVoiceP50Ms === null ? "–" : `${ms(r.voiceToVoiceP50Ms)} / ${ms(r.voiceToVoiceP95Ms)}`);

const Measure: FC<{ title: string; value: string; children?: unknown }> = ({ title, value, children }) => (
  <section class="card measure" aria-label={title}>
    <h2 class="measure-title">{title}</h2>
    <p class="measure-value">{value}</p>
    {children}
  </section>
);

export const OverviewPage: FC<{ shell: Shell; overview: Overview; days: number }> = ({ shell, overview, days }) => {
  const { totals } = overview;
  const dates = overview.days.map((d) => d.day);
  const series = (pick: (r: OverviewRow) => number | null) => overview.days.map(pick);
  const nothing = totals.calls === 0 && totals.chats === 0;
  return (
    <Layout shell={shell} css={OVERVIEW_CSS}>
      <p class="muted small mt0">
        The last {days} days (UTC), updated as calls and chats end. Cost is what the calls cost; <a href="/dashboard/usage">Usage</a> has
        every metered use.
      </p>
      {nothing ? (
        <EmptyState action={{ href: "/dashboard/agents", label: "Open an agent and talk to it" }}>
          No calls or chats in the last {days} days.
        </EmptyState>
      ) : null}
      <div class="measures">
        <Measure title="Calls" value={count(totals.calls)}>
          <DayChart label="Calls" days={dates} values={series((r) => r.calls)} format={count} />
        </Measure>
        <Measure title="Minutes" value={count(totals.minutes)}>
          <DayChart label="Connected minutes" days={dates} values={series((r) => r.minutes)} format={(v) => String(v)} />
        </Measure>
        <Measure title="Chats" value={count(totals.chats)}>
          <DayChart label="Chats started" days={dates} values={series((r) => r.chats)} format={count} />
        </Measure>
        <Measure title="Call cost (credits)" value={credits(totals.costMicro)}>
          <DayChart label="Call cost in credits" days={dates} values={series((r) => r.costMicro)} format={credits} />
        </Measure>
        <Measure title="Success" value={`${percent(totals.successRate)} of ${count(totals.analyzed)} analyzed`}>
          <DayChart
            label="Share of success criteria met in analyzed calls"
            days={dates}
            values={series((r) => r.successRate)}
            format={percent}
          />
        </Measure>
        <Measure title="Voice to voice, p50 / p95" value={latency(totals)}>
          <DayChart
            label={`Voice-to-voice latency of ${count(totals.replies)} agent replies: bars p50, line p95`}
            days={dates}
            values={series((r) => r.voiceToVoiceP50Ms)}
            line={series((r) => r.voiceToVoiceP95Ms)}
            format={ms}
          />
        </Measure>
      </div>
      <h2>By agent</h2>
      <DataTable
        rows={overview.agents}
        empty={<p class="muted m0">No agent has had a call or a chat in these days.</p>}
        columns={[
          {
            header: "Agent",
            cell: (a) => (a.agentId ? <a href={`/dashboard/agents/${a.agentId}`}>{a.agentName}</a> : <span>{a.agentName} (deleted)</span>),
          },
          {
            header: "Calls",
            cell: (a) => (a.agentId ? <a href={`/dashboard/calls?agentId=${a.agentId}`}>{count(a.calls)}</a> : count(a.calls)),
          },
          { header: "Minutes", cell: (a) => count(a.minutes) },
          { header: "Chats", cell: (a) => count(a.chats) },
          { header: "Cost", cell: (a) => credits(a.costMicro) },
          { header: "Success", cell: (a) => percent(a.successRate) },
          { header: "Voice to voice p50 / p95", cell: latency },
        ]}
      />
    </Layout>
  );
};
