// Helpers for the campaign runner's tests and bench: a worker whose runners can place calls
// (PUBLIC_BASE_URL its own address, as in production, so a cron wake needs no request's origin),
// campaigns and recipients written straight into the tables (status `running`, as the API's start
// leaves them), the runner woken through the worker's cron trigger, and what happened measured:
// the most calls in flight at once (from the calls' own times) and the carrier's dials per number.
import { randomInt } from "node:crypto";
import { asc, eq, inArray } from "drizzle-orm";
import { freePort, startWorker, type WorkerProcess } from "../../dev/stack";
import type { Db } from "../../src/db/client";
import {
  type CampaignRecipient,
  type CampaignRetry,
  type CampaignSchedule,
  calls,
  campaignRecipients,
  campaigns,
} from "../../src/db/schema";
import type { SandboxCall } from "./calls";

/** A worker of its own, calling back at its own address. */
export async function startCampaignWorker(vars: Record<string, string>): Promise<WorkerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await startWorker({ ...vars, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }, { port });
    } catch (err) {
      if (attempt >= 3 || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

/** Distinct numbers of the sandbox's brief callee (answers, hangs up 500 ms later: dev/sandbox/callee.ts). */
export function briefNumbers(n: number): string[] {
  const numbers = new Set<string>();
  while (numbers.size < n) numbers.add(`+1555${String(randomInt(10_000_000)).padStart(7, "0")}`);
  return [...numbers];
}

export interface NewCampaign {
  organizationId: string;
  agentId: string;
  numbers: Array<string | { phoneNumber: string; timezone?: string; variables?: Record<string, string> }>;
  maxCallsInFlight: number;
  retry?: CampaignRetry;
  schedule?: CampaignSchedule | null;
  fromNumbers?: string[];
}

/** A running campaign and its recipients (rows 1…n), as the API's create and start leave them. */
export async function insertCampaign(db: Db, c: NewCampaign): Promise<string> {
  const [row] = await db
    .insert(campaigns)
    .values({
      organizationId: c.organizationId,
      name: "Runner test",
      agentId: c.agentId,
      fromNumbers: c.fromNumbers ?? [],
      status: "running",
      schedule: c.schedule ?? null,
      retry: c.retry ?? { maxAttempts: 1, delaySeconds: 1, on: [] },
      maxCallsInFlight: c.maxCallsInFlight,
      recipientCount: c.numbers.length,
      startedAt: new Date(),
    })
    .returning({ id: campaigns.id });
  if (!row) throw new Error("campaign not inserted");
  const rows = c.numbers.map((n, i) => {
    const r = typeof n === "string" ? { phoneNumber: n } : n;
    return {
      campaignId: row.id,
      organizationId: c.organizationId,
      row: i + 1,
      phoneNumber: r.phoneNumber,
      timezone: r.timezone ?? null,
      variables: r.variables ?? {},
    };
  });
  for (let i = 0; i < rows.length; i += 500) await db.insert(campaignRecipients).values(rows.slice(i, i + 500));
  return row.id;
}

/** The worker's cron trigger: wakes every running campaign with work (src/campaigns/runner/backstop.ts). */
export async function wakeThrough(worker: WorkerProcess): Promise<void> {
  const res = await fetch(`${worker.baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
  if (!res.ok) throw new Error(`cron trigger: ${res.status} ${await res.text()}`);
}

export const campaignRow = async (db: Db, id: string) => (await db.select().from(campaigns).where(eq(campaigns.id, id)))[0];

export const recipientsOf = (db: Db, campaignId: string): Promise<CampaignRecipient[]> =>
  db.select().from(campaignRecipients).where(eq(campaignRecipients.campaignId, campaignId)).orderBy(asc(campaignRecipients.row));

export const campaignCalls = (db: Db, campaignId: string) => db.select().from(calls).where(eq(calls.campaignId, campaignId));

/** The most calls in flight at once, from each call's insert to its end (what the triggers count). */
export function peakInFlight(rows: Array<{ createdAt: Date; endedAt: Date | null }>): number {
  const events = rows.flatMap((c) => [
    { at: c.createdAt.getTime(), d: 1 },
    { at: (c.endedAt ?? new Date(8.64e15)).getTime(), d: -1 },
  ]);
  // An end and a start at the same millisecond: the end first (the place was given back in its statement).
  events.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let peak = 0;
  for (const e of events) {
    now += e.d;
    peak = Math.max(peak, now);
  }
  return peak;
}

/** The sandbox carrier's calls (every dial it received). */
export async function sandboxCalls(vars: Record<string, string>): Promise<SandboxCall[]> {
  const auth = Buffer.from(`${vars.TWILIO_ACCOUNT_SID}:${vars.TWILIO_AUTH_TOKEN}`).toString("base64");
  const res = await fetch(`${vars.TWILIO_API_BASE_URL}/__sandbox/calls`, { headers: { authorization: `Basic ${auth}` } });
  return (await res.json()) as SandboxCall[];
}

/** Dials the carrier received per number, counting only the dials of these calls and of these numbers. */
export async function dialsPerNumber(vars: Record<string, string>, callIds: string[], numbers: string[]): Promise<Map<string, number>> {
  const ids = new Set(callIds);
  const own = new Set(numbers);
  const dials = new Map<string, number>();
  for (const c of await sandboxCalls(vars)) {
    // A number of this campaign's own (unique to it), or a shared scenario number dialled for one of its calls.
    if (!own.has(c.to) || (!ids.has(c.customParameters.callId ?? "") && !/^\+1555/.test(c.to))) continue;
    dials.set(c.to, (dials.get(c.to) ?? 0) + 1);
  }
  return dials;
}

/** Stops the campaigns' runners from being woken again (a cancel leaves nothing to dial). */
export async function cancelCampaigns(db: Db, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.update(campaigns).set({ status: "canceled" }).where(inArray(campaigns.id, ids));
}
