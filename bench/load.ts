// One measured case: autocannon against one URL at a fixed number of connections for a
// fixed duration. Bounded twice: autocannon stops itself after `durationSeconds`, and a
// watchdog stops it if it has not finished well after that. Latencies are kept per response
// (autocannon's own histogram has whole milliseconds, too coarse for a sub-millisecond
// /health), so runs can also be merged, as the strategy comparison does with its rounds.
//
// autocannon runs in a thread of its own. The bench's main thread hosts the stack's stand-ins
// (SQL over HTTP, the Redis bridge, the provider sandbox): with the load generator on the same
// event loop, every hop a route makes to them queued behind the generator's own work, which no
// deployed platform has (its database, Redis and provider are other machines), and which
// charged a route more the more hops it makes.
import { Worker } from "node:worker_threads";
import type autocannon from "autocannon";

export interface CaseSpec {
  /** Shown in the tables, e.g. "GET /v1/me". */
  label: string;
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** GET unless said; a body is sent as is with every request. */
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  body?: string;
  /** Seconds before a request counts as timed out (an error). */
  timeoutSeconds?: number;
}

export interface CaseResult {
  label: string;
  connections: number;
  /** Seconds actually measured (the sum, for merged runs). */
  durationSeconds: number;
  /** Completed requests (any status) per second. */
  rps: number;
  /** Latency percentiles in milliseconds, over every response. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  /** Responses with a status outside 2xx. */
  non2xx: number;
  /** Socket errors and timeouts (a timeout counts as an error too). */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

/** What one autocannon run saw, before summarizing. */
export interface RawRun {
  seconds: number;
  latencies: number[];
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

/** Failed requests; a run in which no response came back at all counts as one failure too. */
export const failures = (r: Pick<CaseResult, "non2xx" | "errors" | "total">) => r.non2xx + r.errors + (r.total === 0 ? 1 : 0);

/** What the load thread (bench/load-thread.mjs) posts back when its run is over. */
type ThreadAnswer =
  | { ok: true; result: Pick<autocannon.Result, "statusCodeStats" | "duration" | "non2xx" | "errors" | "timeouts">; latencies: number[] }
  | { ok: false; error: string };

export async function measure(spec: CaseSpec): Promise<RawRun> {
  const timeout = spec.timeoutSeconds ?? 10;
  const options: autocannon.Options = {
    url: spec.url,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout,
    headers: spec.headers,
    method: spec.method ?? "GET",
    body: spec.body,
  };
  const thread = new Worker(new URL("./load-thread.mjs", import.meta.url), {
    workerData: { options, watchdogMs: (spec.durationSeconds + timeout + 15) * 1000 },
  });
  const answer = await new Promise<ThreadAnswer>((resolve, reject) => {
    thread.once("message", resolve);
    thread.once("error", reject);
    thread.once("exit", (code) => reject(new Error(`the load thread exited (code ${code}) before it answered`)));
  }).finally(() => thread.terminate());
  if (!answer.ok) throw new Error(`autocannon failed: ${answer.error}`);
  const { result, latencies } = answer;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  return { seconds: result.duration, latencies, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, statusCodes };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0) : 0;
const ms = (n: number) => Math.round(n * 100) / 100;

/** One result from one or more runs of the same case. */
export function summarize(label: string, connections: number, runs: RawRun[]): CaseResult {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((s, r) => s + r.seconds, 0);
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const sum = (pick: (r: RawRun) => number) => runs.reduce((s, r) => s + pick(r), 0);
  return {
    label,
    connections,
    durationSeconds: ms(seconds),
    rps: seconds > 0 ? ms(latencies.length / seconds) : 0,
    p50: ms(percentile(latencies, 50)),
    p90: ms(percentile(latencies, 90)),
    p99: ms(percentile(latencies, 99)),
    max: ms(latencies.at(-1) ?? 0),
    total: latencies.length,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
  };
}

export async function runCase(spec: CaseSpec): Promise<CaseResult> {
  return summarize(spec.label, spec.connections, [await measure(spec)]);
}

/** A few requests before measuring, so first-request costs (bundle load, JIT) stay out. */
export async function warmUp(spec: Omit<CaseSpec, "connections" | "durationSeconds">, seconds: number): Promise<CaseResult> {
  return runCase({ ...spec, connections: 4, durationSeconds: seconds });
}
