// Usage of a workspace: the credits left, totals by day and modality (the log's daily figures), the
// request log (the Models API's requests and the calls' and chats' metered uses), and the same per
// agent, for GET /v1/usage, the dashboard's JSON copy and its Usage page. Reads only: metering
// writes the log and its daily figures in src/metering/. Takes one `{ ctx, input }`
// (src/services.ts): a `Ctx<"db" | "organizationId">` and the query.
import { and, desc, eq, gte, sql } from "drizzle-orm";
import { type CostlyCall, costliestCalls } from "../calls/service";
import { pageQuery } from "../db/pagination";
import { callDailyStats, chats, NO_AGENT_ID, organizations, type UsageEvent, usageDailyStats, usageEvents } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import { firstIdAt } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import { minutesOf, windowOf } from "../overview/service";
import type { Op } from "../services";

export type Modality = UsageEvent["modality"];

const DAY_MS = 86_400_000;

export interface UsageQuery extends PageParams {
  /** The totals and the agents' figures cover this many days: today and the days before it (UTC). */
  days: number;
  modality?: Modality;
}

/** One day's use of one modality (and its unit). */
export interface DayTotal {
  /** YYYY-MM-DD, UTC. */
  day: string;
  modality: Modality;
  unit: UsageEvent["unit"];
  requests: number;
  succeeded: number;
  quantity: number;
  costMicro: number;
}

export interface Usage {
  balanceMicro: number;
  /** Newest day first, then by modality. */
  totals: DayTotal[];
  requests: Page<UsageEvent>;
  /** The calls and chats of each agent over the last `days` days (not filtered by modality). */
  byAgent: UsageByAgent;
}

/**
 * The usage of a workspace: its balance, its totals over the last `days` days (UTC), a page of its
 * request log, and its agents' use. The totals are the log's daily figures (usage_daily_stats, added
 * to by the statement that logs each use), so they cost the same with 100 or 100,000 uses a day.
 */
export async function getUsage({ ctx, input: query }: Op<UsageQuery>): Promise<Usage> {
  const { db, organizationId } = ctx;
  // The same days as the agents' figures and the dashboard's charts: today and the days before it (UTC).
  const { firstDay } = windowOf(query.days);
  const s = usageDailyStats;
  const modality = query.modality ? [eq(usageEvents.modality, query.modality)] : [];
  const page = pageQuery(query);
  const [[balance], totals, rows, byAgent] = await Promise.all([
    db.select({ micro: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, organizationId)),
    db
      .select({
        day: s.day,
        modality: s.modality,
        unit: s.unit,
        requests: s.requests,
        succeeded: s.succeeded,
        quantity: s.quantity,
        costMicro: s.costMicro,
      })
      .from(s)
      .where(and(ownedBy(s, organizationId), gte(s.day, firstDay), ...(query.modality ? [eq(s.modality, query.modality)] : [])))
      .orderBy(desc(s.day), s.modality, s.unit),
    db
      .select()
      .from(usageEvents)
      .where(and(ownedBy(usageEvents, organizationId), ...modality, ...page.where(usageEvents)))
      .orderBy(desc(usageEvents.id))
      .limit(page.limit + 1),
    getUsageByAgent({ ctx, input: { days: query.days } }),
  ]);
  return {
    balanceMicro: Number(balance?.micro ?? 0),
    totals: totals.map((t) => ({
      day: t.day,
      modality: t.modality,
      unit: t.unit,
      requests: Number(t.requests),
      succeeded: Number(t.succeeded),
      quantity: Number(t.quantity),
      costMicro: Number(t.costMicro),
    })),
    requests: pageOf(rows, page.limit, (row) => row),
    byAgent,
  };
}

/** What an agent's calls and chats used over some days (or the sum of every agent's). */
export interface AgentFigures {
  /** Calls that ended. */
  calls: number;
  /** Their connected time, in minutes (to a tenth). */
  minutes: number;
  /** Chats started. */
  chats: number;
  /** What the calls cost: every metered use of theirs (speech to text, the LLM, text to speech). */
  callMicro: number;
  /** What the chats cost: their metered uses that succeeded. */
  chatMicro: number;
}

export interface AgentUsage extends AgentFigures {
  /** Null when the agent was deleted before its chats were read (its name stays). */
  agentId: string | null;
  agentName: string;
}

export interface UsageByAgent {
  /** The first day covered (YYYY-MM-DD, UTC): the last `days` days, today included. */
  since: string;
  /** Agents with a call or a chat in those days, most credits first. */
  agents: AgentUsage[];
  total: AgentFigures;
}

/**
 * Each agent's calls, minutes and chats over the last `days` days (UTC, today included), with what
 * they cost: the calls from their daily figures (call_daily_stats, kept as calls end: by the day a
 * call was made, as the Overview counts them), the chats started in those days with their metered
 * uses (the usage log's chat index). A call's cost is the sum of its metered uses, so an agent's
 * credits are `callMicro + chatMicro`; the Models API's own requests belong to no agent.
 */
export async function getUsageByAgent({ ctx: { db, organizationId }, input: { days } }: Op<{ days: number }>): Promise<UsageByAgent> {
  const { since, firstDay } = windowOf(days);
  const s = callDailyStats;
  const chatUsage = db
    .select({ micro: sql<number>`coalesce(sum(${usageEvents.costMicro}), 0)`.as("micro") })
    .from(usageEvents)
    .where(and(sql`${usageEvents.chatId} = ${chats.id}`, ownedBy(usageEvents, organizationId), eq(usageEvents.status, 200)))
    .as("chat_usage");
  const [callRows, chatRows] = await Promise.all([
    db
      .select({
        agentId: s.agentId,
        agentName: s.agentName,
        calls: sql<number>`sum(${s.calls})::int`,
        seconds: sql<number>`sum(${s.connectedSeconds})`,
        micro: sql<number>`sum(${s.costMicro})::bigint`,
      })
      .from(s)
      .where(and(ownedBy(s, organizationId), gte(s.day, firstDay)))
      .groupBy(s.agentId, s.agentName),
    db
      .select({
        agentId: chats.agentId,
        agentName: chats.agentName,
        chats: sql<number>`count(*)::int`,
        micro: sql<number>`coalesce(sum(${chatUsage.micro}), 0)::bigint`,
      })
      .from(chats)
      .leftJoinLateral(chatUsage, sql`true`)
      // The id bound (a day early: the worker's clock made the id, the database's the start) keeps
      // the scan to the window's part of the (organization, id) index; started_at is the rule.
      .where(and(ownedBy(chats, organizationId), gte(chats.id, firstIdAt(since.getTime() - DAY_MS)), gte(chats.startedAt, since)))
      .groupBy(chats.agentId, chats.agentName),
  ]);

  const byKey = new Map<string, AgentUsage & { seconds: number }>();
  const into = (agentId: string | null, agentName: string) => {
    const key = `${agentId}:${agentName}`;
    const row = byKey.get(key) ?? { agentId, agentName, calls: 0, seconds: 0, minutes: 0, chats: 0, callMicro: 0, chatMicro: 0 };
    byKey.set(key, row);
    return row;
  };
  for (const r of callRows) {
    const row = into(r.agentId === NO_AGENT_ID ? null : r.agentId, r.agentName);
    row.calls += Number(r.calls);
    row.seconds += Number(r.seconds);
    row.callMicro += Number(r.micro);
  }
  for (const r of chatRows) {
    const row = into(r.agentId, r.agentName);
    row.chats += Number(r.chats);
    row.chatMicro += Number(r.micro);
  }
  const agents = [...byKey.values()]
    .map(({ seconds, ...row }) => ({ ...row, minutes: minutesOf(seconds) }))
    .sort(
      (a, b) =>
        b.callMicro + b.chatMicro - (a.callMicro + a.chatMicro) ||
        b.calls - a.calls ||
        b.chats - a.chats ||
        a.agentName.localeCompare(b.agentName),
    );
  const seconds = [...byKey.values()].reduce((n, r) => n + r.seconds, 0);
  const sum = (pick: (r: AgentUsage) => number) => agents.reduce((n, r) => n + pick(r), 0);
  return {
    since: firstDay,
    agents,
    total: {
      calls: sum((r) => r.calls),
      minutes: minutesOf(seconds),
      chats: sum((r) => r.chats),
      callMicro: sum((r) => r.callMicro),
      chatMicro: sum((r) => r.chatMicro),
    },
  };
}

/** The costliest calls of the last `days` days (UTC, today included: the agents' days), at most `limit`. */
export const topCalls = ({ ctx, input: { days, limit } }: Op<{ days: number; limit: number }>): Promise<CostlyCall[]> =>
  costliestCalls({ ctx, input: { since: windowOf(days).since, limit } });
