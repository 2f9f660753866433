// Plain-text tables for the terminal (and, pasted, for docs/benchmarks.md), plus the
// machine description that every set of figures needs next to it.
import { cpus, loadavg, release, totalmem } from "node:os";
import type { CostsResult } from "./costs";
import type { CaseResult } from "./load";
import type { StrategyResult } from "./strategies/compare";

export interface Machine {
  cores: number;
  cpuModel: string;
  node: string;
  os: string;
  memoryGiB: number;
  /** 1-minute load average when the bench started and ended: other work on the machine skews the figures. */
  loadAverage: { start: number; end?: number };
}

export function describeMachine(): Machine {
  return {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    node: process.version,
    os: `${process.platform} ${release()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: { start: round(loadavg()[0] ?? 0, 2) },
  };
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Nearest-rank percentile (p in 0–100) of a sample; NaN when it is empty. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
}

export interface Row extends CaseResult {
  /** req/s of this case divided by /health's at the same concurrency. */
  rpsRatio: number | null;
  /** p50 of this case divided by /health's at the same concurrency. */
  p50Ratio: number | null;
}

/** Adds the ratios to the /health baseline at the same number of connections. */
export function withRatios(cases: CaseResult[], baselineLabel: string): Row[] {
  return cases.map((c) => {
    const base = cases.find((b) => b.label === baselineLabel && b.connections === c.connections);
    return {
      ...c,
      rpsRatio: base && base.rps > 0 ? c.rps / base.rps : null,
      p50Ratio: base && base.p50 > 0 ? c.p50 / base.p50 : null,
    };
  });
}

export function table(headers: string[], rows: Array<Array<string | number>>, rightAligned = new Set<number>()): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [fmt(headers), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(fmt)].join("\n");
}

const ratio = (r: number | null) => (r === null ? "—" : `${r.toFixed(2)}×`);
const msCell = (n: number) => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
/** Latency of a run that got responses; "—" when none came back. */
const latencyCell = (r: CaseResult, n: number) => (r.total === 0 ? "—" : msCell(n));

export function casesTable(rows: Row[]): string {
  return table(
    ["route", "conns", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors", "req/s vs /health", "p50 vs /health"],
    rows.map((r) => [
      r.label,
      r.connections,
      r.rps.toFixed(1),
      latencyCell(r, r.p50),
      latencyCell(r, r.p99),
      r.non2xx,
      r.errors,
      ratio(r.rpsRatio),
      ratio(r.p50Ratio),
    ]),
    new Set([1, 2, 3, 4, 5, 6, 7, 8]),
  );
}

export function strategiesTable(rows: StrategyResult[]): string {
  return table(
    [
      "strategy",
      "proxy",
      "conns",
      "req/s",
      "req/s by round",
      "p50 ms",
      "p99 ms",
      "non-2xx",
      "errors",
      "peak db conns",
      "WebSocket /1k",
      "SQL over HTTP /1k",
      "deferred ok: defer · waitUntil",
    ],
    rows.map((r) => [
      r.strategy,
      r.proxy,
      r.connections,
      r.rps.toFixed(1),
      r.roundRps.map((n) => n.toFixed(0)).join(" / "),
      latencyCell(r, r.p50),
      latencyCell(r, r.p99),
      r.non2xx,
      r.errors,
      r.peakConnections ?? "—",
      r.websocketsPerThousand ?? "—",
      r.sqlHttpPerThousand ?? "—",
      r.deferred
        ? `${r.deferred.defer.ok}/${r.deferred.defer.requests} · ${r.deferred.waitUntil.ok}/${r.deferred.waitUntil.requests}`
        : "—",
    ]),
    new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
  );
}

/** Per route: what 1,000 requests cost at the wire, counted at the forwarders (bench/costs.ts). */
export function costsTable(result: CostsResult): string {
  return table(
    [
      "route",
      "requests",
      "failed",
      "Postgres WebSocket /1k",
      "SQL over HTTP /1k",
      "statements /1k",
      "Redis requests /1k",
      "Redis commands /1k",
      "p50 ms: SQL · Redis",
    ],
    result.rows.map((r) => [
      r.label,
      r.requests,
      r.failed,
      r.perThousand.websockets,
      result.sqlHttpCounted ? r.perThousand.sqlHttp : "—",
      result.sqlHttpCounted ? namesPerThousand(r.sqlByVerb, r.requests) || "0" : "—",
      r.perThousand.redis,
      namesPerThousand(r.redisByCommand, r.requests) || "0",
      `${r.sqlHttpP50Ms === null ? "—" : msCell(r.sqlHttpP50Ms)} · ${r.redisP50Ms === null ? "—" : msCell(r.redisP50Ms)}`,
    ]),
    new Set([1, 2, 3, 4, 6, 8]),
  );
}

/** "EVALSHA 1000, SET 12": counts by name, per 1,000 requests. */
export const namesPerThousand = (byName: Record<string, number>, requests: number) =>
  Object.entries(byName)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${formatPer(requests > 0 ? (n * 1000) / requests : 0)}`)
    .join(", ");

const formatPer = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
