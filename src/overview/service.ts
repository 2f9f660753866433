// The workspace at a glance (the dashboard's Overview): per day and per agent over the last days,
// the ended calls, their connected minutes and cost, the share of analyzed calls' success criteria
// met, the voice-to-voice latency of the agents' replies (p50 and p95 over every measured reply, to
// the histogram's bucket), and the chats started. It reads the calls' daily figures
// (call_daily_stats: a row per day and agent, kept as calls end), never the calls, and the chats
// grouped by day and agent. docs/dashboard.md, "Overview".
import { and, gte, sql } from "drizzle-orm";
import { listAgentNames } from "../agents/service";
import { addHistograms, histogramPercentile } from "../calls/queries/stats";
import { callDailyStats, chats, NO_AGENT_ID } from "../db/schema";
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

/** The last `days` days, today included (UTC): the instant the first one starts, and that day (YYYY-MM-DD). */
export function windowOf(days: number): { since: Date; firstDay: string } {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - (days - 1) * 86_400_000);
  return { since, firstDay: since.toISOString().slice(0, 10) };
}

/** Connected seconds as the dashboard counts minutes: to a tenth. */
export const minutesOf = (seconds: number): number => Math.round((seconds / 60) * 10) / 10;

export async function getOverview({ ctx: { db, organizationId }, input: { days } }: Op<{ days: number }>): Promise<Overview> {
  const { since, firstDay } = windowOf(days);
  const chatDay = sql<string>`to_char(date_trunc('day', ${chats.startedAt} at time zone 'UTC'), 'YYYY-MM-DD')`;
  const [callRows, chatRows, live] = await Promise.all([
    db
      .select()
      .from(callDailyStats)
      .where(and(ownedBy(callDailyStats, organizationId), gte(callDailyStats.day, firstDay))),
    db
      .select({ day: chatDay, agentId: chats.agentId, agentName: chats.agentName, chats: sql<number>`count(*)::int` })
      .from(chats)
      .where(and(ownedBy(chats, organizationId), gte(chats.startedAt, since)))
      .groupBy(chatDay, chats.agentId, chats.agentName),
    // The agents that still exist: a deleted one's figures stay, under its name, without a link.
    listAgentNames({ ctx: { db, organizationId } }).then((agents) => new Set(agents.map((a) => a.id))),
  ]);

  // Sums per day, per agent and in total; latencies as histograms until the percentiles are read.
  type Sum = {
    calls: number;
    seconds: number;
    costMicro: number;
    analyzed: number;
    successSum: number;
    histogram: number[];
    chats: number;
  };
  const sums = new Map<string, Sum & { agentId: string | null; agentName: string }>();
  const into = (key: string, agentId: string | null, agentName: string) => {
    const sum = sums.get(key) ?? {
      calls: 0,
      seconds: 0,
      costMicro: 0,
      analyzed: 0,
      successSum: 0,
      histogram: [],
      chats: 0,
      agentId,
      agentName,
    };
    sums.set(key, sum);
    return sum;
  };
  /** An agent that still exists, by its id; a deleted one (or none) is known by its name only, calls and chats alike. */
  const liveId = (id: string | null) => (id && id !== NO_AGENT_ID && live.has(id) ? id : null);
  for (const r of callRows) {
    const agentId = liveId(r.agentId);
    for (const sum of [into(`d:${r.day}`, null, ""), into(`a:${agentId}:${r.agentName}`, agentId, r.agentName), into("t", null, "")]) {
      sum.calls += r.calls;
      sum.seconds += r.connectedSeconds;
      sum.costMicro += Number(r.costMicro);
      sum.analyzed += r.analyzed;
      sum.successSum += r.successSum;
      sum.histogram = addHistograms(sum.histogram, r.latencyHistogram);
    }
  }
  for (const r of chatRows) {
    const agentId = liveId(r.agentId);
    for (const sum of [into(`d:${r.day}`, null, ""), into(`a:${agentId}:${r.agentName}`, agentId, r.agentName), into("t", null, "")])
      sum.chats += r.chats;
  }

  const rowOf = (sum: Sum | undefined): OverviewRow =>
    sum
      ? {
          calls: sum.calls,
          minutes: minutesOf(sum.seconds),
          costMicro: sum.costMicro,
          successRate: sum.analyzed > 0 ? sum.successSum / sum.analyzed : null,
          analyzed: sum.analyzed,
          voiceToVoiceP50Ms: histogramPercentile(sum.histogram, 50),
          voiceToVoiceP95Ms: histogramPercentile(sum.histogram, 95),
          replies: sum.histogram.reduce((a, b) => a + b, 0),
          chats: sum.chats,
        }
      : empty();
  return {
    days: Array.from({ length: days }, (_, i) => {
      const day = new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10);
      return { day, ...rowOf(sums.get(`d:${day}`)) };
    }),
    agents: [...sums.entries()]
      .filter(([key]) => key.startsWith("a:"))
      .map(([, sum]) => ({ agentId: sum.agentId, agentName: sum.agentName, ...rowOf(sum) }))
      .sort((a, b) => b.calls - a.calls || b.chats - a.chats || a.agentName.localeCompare(b.agentName)),
    totals: rowOf(sums.get("t")),
  };
}
