/** @jsxImportSource hono/jsx */
// Usage: credits left, a per-day chart per modality (an SVG drawn on the server), and the
// request log, from the same report as GET /v1/usage. A workspace with no usage yet is told
// how to make some instead of being shown empty charts.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { toUsageReport } from "../../usage/mapper";
import { getUsage } from "../../usage/service";
import { Layout, shellOf, When } from "./ui";

const MODALITIES = [
  { key: "chat", label: "LLM chat", color: "#3b5bdb" },
  { key: "tts", label: "Text to speech", color: "#0ca678" },
  { key: "stt", label: "Speech to text", color: "#f08c00" },
] as const;

/**
 * The page's styles: the charts keep a legible size and scroll sideways on a phone, starting
 * at the right (the latest days: a right-to-left scroll box opens at its right edge).
 */
const CSS = `
.big-number{margin:0;font-size:28px;font-weight:700}
.chart-wrap{padding:0;direction:rtl}.chart-wrap svg{direction:ltr;display:block;width:100%;min-width:560px;height:auto}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px}
${MODALITIES.map((m) => `.swatch.${m.key}{background:${m.color}}`).join("")}
.steps{margin:8px 0 0;padding-left:20px}.steps li{margin:4px 0}
`;

interface DayTotal {
  day: string;
  modality: string;
  cost: number;
  requests: number;
}

/** Stacked bars: credits per day, one colour per modality. */
function Chart({ days, totals, metric }: { days: string[]; totals: DayTotal[]; metric: "cost" | "requests" }) {
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
      aria-label={`${metric === "cost" ? "Credits" : "Requests"} per day over the last ${days.length} days, by modality; total ${fmt(total)}.`}
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
                <rect x={pad.l + i * bw + 1} y={top} width={Math.max(1, bw - 2)} height={Math.max(1, bottom - top)} fill={m.color}>
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
}

export function registerUsagePage(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/usage", async (c) => {
    const shell = await shellOf(c, "Usage", "usage");
    const daysBack = 30;
    const report = toUsageReport(await getUsage(c.var.db, c.var.auth.organizationId, { days: daysBack, limit: 50 }));
    const days = Array.from({ length: daysBack }, (_, i) =>
      new Date(Date.now() - (daysBack - 1 - i) * 86_400_000).toISOString().slice(0, 10),
    );
    const empty = report.totals.length === 0 && report.requests.data.length === 0;
    return c.html(
      <Layout shell={shell} css={CSS}>
        <div class="card">
          <p class="big-number">{report.credits.remaining.toLocaleString("en-US", { maximumFractionDigits: 4 })}</p>
          <p class="muted m0">credits remaining</p>
        </div>
        {empty ? (
          <div class="card">
            <h2 class="mt0">No usage yet</h2>
            <p class="m0">
              Every metered request (LLM chat, text to speech, speech to text, calls) shows up here with what it cost, per day and one by
              one. To make the first:
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
        ) : (
          <div class="card">
            <h2 class="mt0">Credits per day</h2>
            {report.totals.length === 0 ? <p class="muted">No metered requests in the last {daysBack} days.</p> : null}
            <div class="table-wrap chart-wrap" tabindex={0}>
              <Chart days={days} totals={report.totals} metric="cost" />
            </div>
            <h2>Requests per day</h2>
            <div class="table-wrap chart-wrap" tabindex={0}>
              <Chart days={days} totals={report.totals} metric="requests" />
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
        )}
        {empty ? null : <h2>Request log</h2>}
        {empty ? null : (
          <div class="card table-wrap" tabindex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Request</th>
                  <th scope="col">Model</th>
                  <th scope="col">Status</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Used</th>
                  <th scope="col">Credits</th>
                </tr>
              </thead>
              <tbody>
                {report.requests.data.map((r) => (
                  <tr>
                    <td>
                      <When at={r.createdAt} />
                    </td>
                    <td class="mono small">
                      {r.method} {r.endpoint}
                    </td>
                    <td class="mono small">{r.model}</td>
                    <td>
                      {r.status}
                      {r.errorCode ? ` ${r.errorCode}` : ""}
                    </td>
                    <td>{r.latencyMs} ms</td>
                    <td>{r.unit === "audio_ms" ? `${(r.quantity / 1000).toFixed(1)} s` : `${r.quantity} ${r.unit}`}</td>
                    <td>{r.cost}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Layout>,
    );
  });
}
