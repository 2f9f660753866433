/** @jsxImportSource hono/jsx */
// The Usage screen: credits left, the range (a preset or any days), its summary (credits, requests,
// calls, minutes, chats), a per-day chart per modality (an SVG drawn on the server), the agents'
// figures, the range's calls by cost (paged) and its request log; a workspace with no usage yet is
// told how to make some instead of being shown empty charts. Colours are the modalities' classes in
// ui/assets/usage.css.
import type { FC } from "hono/jsx";
import type { CostlyCallView, UsageReport } from "../../usage/mapper";
import { DataTable, EmptyState, ErrorSummary, type FieldErrors, Layout, type Shell, TextField, When } from "../ui";
import { USAGE_CSS } from "../ui/assets/built";
import { ByAgentTable, CallsByCostTable, Summary } from "./breakdown";
import type { UsageRange } from "./range";

const MODALITIES = [
  { key: "chat", label: "LLM chat" },
  { key: "tts", label: "Text to speech" },
  { key: "stt", label: "Speech to text" },
  { key: "embedding", label: "Embeddings (knowledge)" },
] as const;

interface DayTotal {
  day: string;
  modality: string;
  cost: number;
  requests: number;
}

/** Stacked bars: credits (or requests) per day, one colour per modality. */
const Chart: FC<{ days: string[]; totals: DayTotal[]; metric: "cost" | "requests"; label: string }> = ({ days, totals, metric, label }) => {
  const W = 760;
  const H = 220;
  const pad = { l: 48, r: 8, t: 10, b: 28 };
  const value = (day: string, m: string) => totals.filter((t) => t.day === day && t.modality === m).reduce((n, t) => n + t[metric], 0);
  const sums = days.map((d) => MODALITIES.reduce((n, m) => n + value(d, m.key), 0));
  // The tallest day fills the chart (a floor only when nothing was used: small costs stay visible).
  const max = Math.max(...sums) || (metric === "cost" ? 0.001 : 1);
  const bw = (W - pad.l - pad.r) / days.length;
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const fmt = (v: number) => (metric === "cost" ? (v >= 1 ? v.toFixed(2) : v.toPrecision(2)) : String(Math.round(v)));
  const total = sums.reduce((a, b) => a + b, 0);
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      role="img"
      aria-label={`${metric === "cost" ? "Credits" : "Requests"} per day over ${label}, by modality; total ${fmt(total)}.`}
    >
      <line x1={pad.l} y1={y(0)} x2={W - pad.r} y2={y(0)} stroke="#adb5bd" />
      <line x1={pad.l} y1={y(max)} x2={W - pad.r} y2={y(max)} stroke="#e9ecef" />
      <text x={pad.l - 6} y={y(max) + 4} text-anchor="end" font-size="12" fill="#5b6475">
        {fmt(max)}
      </text>
      <text x={pad.l - 6} y={y(0) + 4} text-anchor="end" font-size="12" fill="#5b6475">
        0
      </text>
      {days.map((d, i) => {
        let base = 0;
        return (
          <g>
            {MODALITIES.map((m) => {
              const v = value(d, m.key);
              if (v === 0) return null;
              const top = y(base + v);
              const bottom = y(base);
              base += v;
              return (
                <rect class={`bar ${m.key}`} x={pad.l + i * bw + 1} y={top} width={Math.max(1, bw - 2)} height={Math.max(1, bottom - top)}>
                  <title>{`${d} · ${m.label}: ${fmt(v)}`}</title>
                </rect>
              );
            })}
            {i % Math.ceil(days.length / 8) === 0 ? (
              <text x={pad.l + i * bw + bw / 2} y={H - 8} text-anchor="middle" font-size="12" fill="#5b6475">
                {d.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
};

const NoUsageYet: FC<{ range: UsageRange }> = ({ range }) => (
  <div class="card">
    <h2 class="mt0">{range.preset === null ? `Nothing used in ${range.label}` : "No usage yet"}</h2>
    <p class="m0">
      Every metered request (LLM chat, text to speech, speech to text, calls) shows up here with what it cost, per day and one by one. To
      make the first:
    </p>
    <ul class="steps">
      <li>
        <a href="/dashboard/api-keys">Create an API key</a> and call the API with it, for example <code>POST /v1/llm/chat</code>.
      </li>
      <li>
        Or <a href="/dashboard/calls">place a test call</a> to one of your agents.
      </li>
    </ul>
  </div>
);

const Charts: FC<{ days: string[]; totals: DayTotal[]; label: string }> = ({ days, totals, label }) => (
  <div class="card">
    <h2 class="mt0">Credits per day</h2>
    {totals.length === 0 ? <p class="muted">No metered requests in {label}.</p> : null}
    <div class="table-wrap chart-wrap" tabindex={0}>
      <Chart days={days} totals={totals} metric="cost" label={label} />
    </div>
    <h2>Requests per day</h2>
    <div class="table-wrap chart-wrap" tabindex={0}>
      <Chart days={days} totals={totals} metric="requests" label={label} />
    </div>
    <p class="row small" aria-hidden="true">
      {MODALITIES.map((m) => (
        <span>
          <span class={`swatch ${m.key}`} />
          {m.label}
        </span>
      ))}
    </p>
  </div>
);

/** A request log row, with the call or chat it was for (null: an API request). */
export type RequestRow = UsageReport["requests"]["data"][number] & { callId: string | null; chatId: string | null };

const RequestLog: FC<{ rows: RequestRow[] }> = ({ rows }) => (
  <DataTable
    rows={rows}
    empty={<EmptyState muted>No requests in the log.</EmptyState>}
    columns={[
      { header: "Time", cell: (r) => <When at={r.createdAt} /> },
      { header: "Request", class: "mono small", cell: (r) => `${r.method} ${r.endpoint}` },
      {
        header: "For",
        class: "small",
        cell: (r) =>
          r.callId ? (
            <a href={`/dashboard/calls/${r.callId}`}>a call</a>
          ) : r.chatId ? (
            <a href={`/dashboard/chats/${r.chatId}`}>a chat</a>
          ) : (
            <span class="muted">the API</span>
          ),
      },
      { header: "Model", class: "mono small", cell: (r) => r.model },
      { header: "Status", cell: (r) => `${r.status}${r.errorCode ? ` ${r.errorCode}` : ""}` },
      { header: "Latency", cell: (r) => `${r.latencyMs} ms` },
      { header: "Used", cell: (r) => (r.unit === "audio_ms" ? `${(r.quantity / 1000).toFixed(1)} s` : `${r.quantity} ${r.unit}`) },
      { header: "Credits", cell: (r) => r.cost },
    ]}
  />
);

/** The range picker: a link per preset (the current one marked), and any days with two dates. */
const Ranges: FC<{
  presets: readonly number[];
  range: UsageRange;
  errors: FieldErrors;
  values: { from: string; to: string };
}> = ({ presets, range, errors, values }) => {
  const chosen = Object.keys(errors).length > 0 ? values : range.preset === null ? { from: range.firstDay, to: range.lastDay } : null;
  return (
    <div class="card">
      <nav class="row small" aria-label="Range">
        <span class="muted">Show the last</span>
        {presets.map((n) =>
          n === range.preset && !chosen ? (
            <strong aria-current="page">{n} days</strong>
          ) : (
            <a href={`/dashboard/usage?days=${n}`}>{n} days</a>
          ),
        )}
      </nav>
      <ErrorSummary errors={errors} message="These days cannot be shown: the last 30 days are shown instead." />
      <form method="get" action="/dashboard/usage" class="row range-form" aria-label="Choose the days" novalidate>
        <div class="w160">
          <TextField name="from" label="From day" type="date" value={chosen?.from ?? range.firstDay} errors={errors} />
        </div>
        <div class="w160">
          <TextField name="to" label="To day" type="date" value={chosen?.to ?? range.lastDay} errors={errors} />
        </div>
        <button type="submit" class="secondary end">
          Show
        </button>
        <p class="hint w100">UTC days, both included; at most 366 days.</p>
      </form>
    </div>
  );
};

export const UsagePage: FC<{
  shell: Shell;
  report: UsageReport;
  rows: RequestRow[];
  /** A page of the range's calls, costliest first. */
  calls: CostlyCallView[];
  /** The first page of them (the costliest), not a later one. */
  callsFirst: boolean;
  /** The next page of calls, when there is one. */
  moreCalls: string | null;
  days: string[];
  range: UsageRange;
  presets: readonly number[];
  /** Problems with the days asked for (the default range is shown). */
  rangeErrors: FieldErrors;
  rangeValues: { from: string; to: string };
  /** The request log's older page, when there is one. */
  older: string | null;
}> = ({ shell, report, rows, calls, callsFirst, moreCalls, days, range, presets, rangeErrors, rangeValues, older }) => {
  const empty = report.totals.length === 0 && rows.length === 0 && report.byAgent.agents.length === 0 && calls.length === 0;
  return (
    <Layout shell={shell} css={USAGE_CSS}>
      <div class="card">
        <p class="big-number">{report.credits.remaining.toLocaleString("en-US", { maximumFractionDigits: 4 })}</p>
        <p class="muted m0">credits remaining</p>
      </div>
      <Ranges presets={presets} range={range} errors={rangeErrors} values={rangeValues} />
      {empty ? (
        <NoUsageYet range={range} />
      ) : (
        <>
          <Summary report={report} label={range.label} />
          <Charts days={days} totals={report.totals} label={range.label} />
          <ByAgentTable byAgent={report.byAgent} label={range.label} />
          <CallsByCostTable calls={calls} label={range.label} first={callsFirst} more={moreCalls} />
          <h2 id="request-log">Request log</h2>
          <p class="muted small">Every metered request of {range.label}, newest first.</p>
          <RequestLog rows={rows} />
          {older ? (
            <p>
              <a href={older}>Older requests</a>
            </p>
          ) : null}
        </>
      )}
    </Layout>
  );
};
