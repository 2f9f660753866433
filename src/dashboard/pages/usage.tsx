/** @jsxImportSource hono/jsx */
// Usage: credits left, a per-day chart per modality (an SVG drawn on the server), and the
// request log, from the same report as GET /v1/usage.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { usageReport } from "../../routes/v1/models/usage";
import { Layout, shellOf, when } from "./ui";

const MODALITIES = [
  { key: "chat", label: "LLM chat", color: "#3b5bdb" },
  { key: "tts", label: "Text to speech", color: "#0ca678" },
  { key: "stt", label: "Speech to text", color: "#f08c00" },
] as const;

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
  const max = Math.max(...sums, metric === "cost" ? 0.001 : 1);
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
      style="max-width:100%;height:auto"
    >
      <line x1={pad.l} y1={y(0)} x2={W - pad.r} y2={y(0)} stroke="#adb5bd" />
      <line x1={pad.l} y1={y(max)} x2={W - pad.r} y2={y(max)} stroke="#e9ecef" />
      <text x={pad.l - 6} y={y(max) + 4} text-anchor="end" font-size="11" fill="#5b6475">
        {fmt(max)}
      </text>
      <text x={pad.l - 6} y={y(0) + 4} text-anchor="end" font-size="11" fill="#5b6475">
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
              <text x={pad.l + i * bw + bw / 2} y={H - 8} text-anchor="middle" font-size="10" fill="#5b6475">
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
    const report = await usageReport(c.var.db, c.var.auth.organizationId, { days: daysBack, limit: 50 });
    const days = Array.from({ length: daysBack }, (_, i) =>
      new Date(Date.now() - (daysBack - 1 - i) * 86_400_000).toISOString().slice(0, 10),
    );
    return c.html(
      <Layout shell={shell}>
        <div class="card">
          <p style="margin:0;font-size:28px;font-weight:700">
            {report.credits.remaining.toLocaleString("en-US", { maximumFractionDigits: 4 })}
          </p>
          <p class="muted" style="margin:0">
            credits remaining
          </p>
        </div>
        <div class="card">
          <h2 style="margin-top:0">Credits per day</h2>
          <Chart days={days} totals={report.totals} metric="cost" />
          <h2>Requests per day</h2>
          <Chart days={days} totals={report.totals} metric="requests" />
          <p class="row small" aria-hidden="true">
            {MODALITIES.map((m) => (
              <span>
                <span style={`display:inline-block;width:10px;height:10px;background:${m.color};margin-right:4px`} />
                {m.label}
              </span>
            ))}
          </p>
        </div>
        <h2>Request log</h2>
        <div class="card table-wrap">
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
                  <td>{when(r.createdAt)}</td>
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
      </Layout>,
    );
  });
}
