// The calls' daily figures (calls.ts' callDailyStats), kept as calls end: the ending adds the call
// (its connected time, its cost at the end, its replies' latencies), a later cost settlement adds
// the difference, and the report adds its success score once. Each is one upsert on the
// (workspace, day, agent) row; the Overview reads those rows, never the calls.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type Call, callDailyStats, NO_AGENT_ID } from "../../db/schema";

/** Voice-to-voice buckets: 10 ms wide below 3 s, 100 ms wide below 10 s, then one for the rest. */
const FINE_MS = 10;
const FINE_UNTIL = 3_000;
const COARSE_MS = 100;
const COARSE_UNTIL = 10_000;
const FINE = FINE_UNTIL / FINE_MS;
export const LATENCY_BUCKETS = FINE + (COARSE_UNTIL - FINE_UNTIL) / COARSE_MS + 1;

export const latencyBucket = (ms: number): number =>
  ms < FINE_UNTIL
    ? Math.max(0, Math.floor(ms / FINE_MS))
    : ms < COARSE_UNTIL
      ? FINE + Math.floor((ms - FINE_UNTIL) / COARSE_MS)
      : LATENCY_BUCKETS - 1;

/** A bucket's middle, in ms (the last one, open-ended, at its start). */
export const bucketMiddle = (i: number): number =>
  i < FINE ? i * FINE_MS + FINE_MS / 2 : i < LATENCY_BUCKETS - 1 ? FINE_UNTIL + (i - FINE) * COARSE_MS + COARSE_MS / 2 : COARSE_UNTIL;

/** The dense histogram of some latencies. */
export function histogramOf(latencies: readonly number[]): number[] {
  const out = new Array<number>(LATENCY_BUCKETS).fill(0);
  for (const ms of latencies) out[latencyBucket(ms)] = (out[latencyBucket(ms)] ?? 0) + 1;
  return out;
}

/** The nearest-rank percentile (0 to 100) of a histogram, as its bucket's middle; null when empty. */
export function histogramPercentile(histogram: readonly number[], p: number): number | null {
  const n = histogram.reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return bucketMiddle(i);
  }
  return bucketMiddle(histogram.length - 1);
}

/** Without its trailing empty buckets (what is stored: most replies fall in the first hundred or so). */
export function trimmed(histogram: readonly number[]): number[] {
  let end = histogram.length;
  while (end > 0 && !histogram[end - 1]) end--;
  return histogram.slice(0, end);
}

/** Adds histograms (of any lengths). */
export function addHistograms(a: readonly number[], b: readonly number[]): number[] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => (a[i] ?? 0) + (b[i] ?? 0));
}

type Owner = Pick<Call, "organizationId" | "createdAt" | "agentId" | "agentName">;
interface Delta {
  calls?: number;
  connectedSeconds?: number;
  costMicro?: number;
  analyzed?: number;
  successSum?: number;
  latencies?: readonly number[];
}

const t = callDailyStats;

/**
 * One upsert of a call's day-and-agent row, adding `delta` (an absent row starts at zero). It never
 * throws: the call's own write has happened, and its webhooks and analysis must follow; a failed
 * upsert is logged (the Overview is then short of it) rather than breaking the call's ending.
 */
export async function addToDailyStats(db: Db, call: Owner, delta: Delta): Promise<void> {
  try {
    await upsert(db, call, delta);
  } catch (err) {
    const root = err instanceof Error ? err : new Error(String(err));
    console.error(
      JSON.stringify({ level: "error", msg: "call daily figures not updated", error: root.name, message: root.message.slice(0, 200) }),
    );
  }
}

async function upsert(db: Db, call: Owner, delta: Delta): Promise<void> {
  const latencies = delta.latencies ?? [];
  await db
    .insert(t)
    .values({
      organizationId: call.organizationId,
      day: call.createdAt.toISOString().slice(0, 10),
      agentId: call.agentId ?? NO_AGENT_ID,
      agentName: call.agentName,
      calls: delta.calls ?? 0,
      connectedSeconds: delta.connectedSeconds ?? 0,
      costMicro: delta.costMicro ?? 0,
      analyzed: delta.analyzed ?? 0,
      successSum: delta.successSum ?? 0,
      replies: latencies.length,
      latencyHistogram: trimmed(histogramOf(latencies)),
    })
    .onConflictDoUpdate({
      target: [t.organizationId, t.day, t.agentId, t.agentName],
      set: {
        calls: sql`${t.calls} + excluded.calls`,
        connectedSeconds: sql`${t.connectedSeconds} + excluded.connected_seconds`,
        costMicro: sql`${t.costMicro} + excluded.cost_micro`,
        analyzed: sql`${t.analyzed} + excluded.analyzed`,
        successSum: sql`${t.successSum} + excluded.success_sum`,
        replies: sql`${t.replies} + excluded.replies`,
        latencyHistogram: sql`case when cardinality(excluded.latency_histogram) = 0 then ${t.latencyHistogram} else (select array_agg(coalesce(a, 0) + coalesce(b, 0) order by n) from unnest(${t.latencyHistogram}, excluded.latency_histogram) with ordinality as h(a, b, n)) end`,
      },
    });
}

/** What an ended call adds: itself, its connected time, its cost so far and its replies' latencies. */
export const addEndedCall = (db: Db, call: Call) =>
  addToDailyStats(db, call, {
    calls: 1,
    connectedSeconds: call.startedAt && call.endedAt ? Math.max(0, (call.endedAt.getTime() - call.startedAt.getTime()) / 1000) : 0,
    costMicro: call.costMicro,
    latencies: call.voiceToVoiceMs ?? [],
  });
