// The workspace at a glance (the dashboard's Overview): per day and per agent over the last days,
// calls, minutes, what the calls cost, the share of analyzed calls' success criteria met, the
// voice-to-voice latency of the agents' replies (p50 and p95 over every measured reply, from
// calls.voice_to_voice_ms: no transcript is read), and chats. Three grouped reads, each one pass
// over the window's rows with GROUPING SETS (by day, by agent). docs/dashboard.md, "Overview".
import { and, type Column, gte, sql } from "drizzle-orm";
import { calls, chats } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import type { Op } from "../services";

export interface OverviewRow {
  calls: number;
  /** Connected time, in minutes (a call that never connected counts none). */
  minutes: number;
  costMicro: number;
  /** Calls with an analysis: the mean of their success scores (0 to 1); null when none was analyzed. */
  successRate: number | null;
  analyzed: number;
  voiceToVoiceP50Ms: number | null;
  voiceToVoiceP95Ms: number | null;
  replies: number;
  chats: number;
}

export interface Overview {
  /** Every day of the window, oldest first (YYYY-MM-DD, UTC), days without activity included. */
  days: Array<OverviewRow & { day: string }>;
  /** The agents with calls or chats in the window, most calls first. */
  agents: Array<OverviewRow & { agentId: string | null; agentName: string }>;
  totals: OverviewRow;
}

const empty = (): OverviewRow => ({
  calls: 0,
  minutes: 0,
  costMicro: 0,
  successRate: null,
  analyzed: 0,
  voiceToVoiceP50Ms: null,
  voiceToVoiceP95Ms: null,
  replies: 0,
  chats: 0,
});

const dayOf = (column: Column) => sql<string>`to_char(date_trunc('day', ${column} at time zone 'UTC'), 'YYYY-MM-DD')`;

export async function getOverview({ ctx: { db, organizationId }, input: { days } }: Op<{ days: number }>): Promise<Overview> {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const since = new Date(today - (days - 1) * 86_400_000);
  const inWindow = and(ownedBy(calls, organizationId), gte(calls.createdAt, since));
  const callDay = dayOf(calls.createdAt);
  // Grouping sets: (day), (agent) and () in one pass; `grouping()` says which a row is.
  const sets = sql`grouping sets ((${callDay}), (${calls.agentId}, ${calls.agentName}), ())`;
  const kind = sql<number>`grouping(${callDay}, ${calls.agentId})::int`;
  const [callRows, latencyRows, chatRows] = await Promise.all([
    db
      .select({
        kind,
        day: callDay,
        agentId: calls.agentId,
        agentName: calls.agentName,
        calls: sql<number>`count(*)::int`,
        seconds: sql<number>`coalesce(sum(extract(epoch from (${calls.endedAt} - ${calls.startedAt}))) filter (where ${calls.startedAt} is not null and ${calls.endedAt} is not null), 0)::float8`,
        costMicro: sql<number>`coalesce(sum(${calls.costMicro}), 0)::bigint`,
        success: sql<number | null>`avg((${calls.report}->>'successScore')::float8)`,
        analyzed: sql<number>`count(${calls.report})::int`,
      })
      .from(calls)
      .where(inWindow)
      .groupBy(sets),
    db
      .select({
        kind,
        day: callDay,
        agentId: calls.agentId,
        agentName: calls.agentName,
        p50: sql<number | null>`percentile_cont(0.5) within group (order by v)`,
        p95: sql<number | null>`percentile_cont(0.95) within group (order by v)`,
        replies: sql<number>`count(*)::int`,
      })
      .from(calls)
      .innerJoin(sql`unnest(${calls.voiceToVoiceMs}) as v`, sql`true`)
      .where(inWindow)
      .groupBy(sets),
    db
      .select({
        kind: sql<number>`grouping(${dayOf(chats.startedAt)}, ${chats.agentId})::int`,
        day: dayOf(chats.startedAt),
        agentId: chats.agentId,
        agentName: chats.agentName,
        chats: sql<number>`count(*)::int`,
      })
      .from(chats)
      .where(and(ownedBy(chats, organizationId), gte(chats.startedAt, since)))
      .groupBy(sql`grouping sets ((${dayOf(chats.startedAt)}), (${chats.agentId}, ${chats.agentName}), ())`),
  ]);

  // kind: 1 = by day (agent rolled up), 2 = by agent (day rolled up), 3 = the total.
  const rows = new Map<string, OverviewRow & { agentId: string | null; agentName: string }>();
  const rowOf = (r: { kind: number; day: string | null; agentId: string | null; agentName: string | null }) => {
    const key = r.kind === 1 ? `d:${r.day}` : r.kind === 2 ? `a:${r.agentId}:${r.agentName}` : "t";
    const row = rows.get(key) ?? { ...empty(), agentId: r.agentId, agentName: r.agentName ?? "" };
    rows.set(key, row);
    return row;
  };
  for (const r of callRows)
    Object.assign(rowOf(r), {
      calls: r.calls,
      minutes: Math.round((Number(r.seconds) / 60) * 10) / 10,
      costMicro: Number(r.costMicro),
      successRate: r.success === null ? null : Number(r.success),
      analyzed: r.analyzed,
    });
  const rounded = (v: number | null) => (v === null ? null : Math.round(Number(v)));
  for (const r of latencyRows)
    if (r.replies > 0)
      Object.assign(rowOf(r), { voiceToVoiceP50Ms: rounded(r.p50), voiceToVoiceP95Ms: rounded(r.p95), replies: r.replies });
  for (const r of chatRows) rowOf(r).chats = r.chats;

  const strip = ({ agentId: _a, agentName: _n, ...row }: OverviewRow & { agentId: string | null; agentName: string }): OverviewRow => row;
  return {
    days: Array.from({ length: days }, (_, i) => {
      const day = new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10);
      const row = rows.get(`d:${day}`);
      return { day, ...(row ? strip(row) : empty()) };
    }),
    agents: [...rows.entries()]
      .filter(([key]) => key.startsWith("a:"))
      .map(([, row]) => row)
      .sort((a, b) => b.calls - a.calls || b.chats - a.chats || a.agentName.localeCompare(b.agentName)),
    totals: rows.has("t") ? strip(rows.get("t") as OverviewRow & { agentId: string | null; agentName: string }) : empty(),
  };
}
