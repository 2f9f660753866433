/** @jsxImportSource hono/jsx */
// A small per-day chart drawn on the server (SVG, no script): one bar per day, or, with `line`, a
// second series drawn as a line over the bars (e.g. p95 over p50). Days without a value are gaps.
// Sized by its viewBox; the page's CSS gives it its width (.day-chart).
import type { FC } from "hono/jsx";

export interface DayChartProps {
  /** What the chart shows, read by screen readers with the days' range and the latest value. */
  label: string;
  days: string[];
  values: Array<number | null>;
  line?: Array<number | null>;
  format(value: number): string;
}

export const DayChart: FC<DayChartProps> = ({ label, days, values, line, format }) => {
  const W = 300;
  const H = 90;
  const pad = { l: 2, r: 2, t: 14, b: 14 };
  const max = Math.max(0, ...values.map((v) => v ?? 0), ...(line ?? []).map((v) => v ?? 0)) || 1;
  const bw = (W - pad.l - pad.r) / Math.max(1, days.length);
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const points = (line ?? [])
    .map((v, i) => (v === null ? null : `${(pad.l + i * bw + bw / 2).toFixed(1)},${y(v).toFixed(1)}`))
    .filter((p): p is string => p !== null);
  const first = days[0] ?? "";
  const last = days[days.length - 1] ?? "";
  return (
    <svg class="day-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${label}, per day from ${first} to ${last}.`}>
      <line x1={pad.l} y1={y(0)} x2={W - pad.r} y2={y(0)} stroke="#adb5bd" />
      <text x={W - pad.r} y={10} text-anchor="end" font-size="10" fill="#5b6475">
        {`max ${format(max)}`}
      </text>
      {values.map((v, i) =>
        v === null || v === 0 ? null : (
          <rect class="day-bar" x={pad.l + i * bw + 0.5} y={y(v)} width={Math.max(1, bw - 1)} height={Math.max(1, y(0) - y(v))}>
            <title>{`${days[i]}: ${format(v)}`}</title>
          </rect>
        ),
      )}
      {points.length > 1 ? <polyline class="day-line" points={points.join(" ")} fill="none" /> : null}
      <text x={pad.l} y={H - 2} font-size="10" fill="#5b6475">
        {first.slice(5)}
      </text>
      <text x={W - pad.r} y={H - 2} text-anchor="end" font-size="10" fill="#5b6475">
        {last.slice(5)}
      </text>
    </svg>
  );
};
