// Campaign bench (issue 33: "a 1,000-recipient campaign at 20 in flight against the telephony
// sandbox finishes with every recipient in a final state, no number dialled twice for one attempt,
// and the measured peak in flight never above 20; a worker restart in the middle loses nothing").
//
// The campaign runs on a worker of its own (PUBLIC_BASE_URL its own address, its Durable Objects'
// state in a folder kept across the restart, as a deploy keeps them), against the sandbox's brief
// callee (answers, hangs up 500 ms later). Halfway, the worker is stopped, calls in flight and
// all, and started again: what it left (claims with no call, calls ended unseen, the runner's
// alarm) must be picked up. The cron trigger is fired every few seconds, as production's fires
// every minute. The baseline is an integrator's own loop through POST /v1/agents/:id/calls, 20
// calls at a time, each waited for: the ratio is the campaign's calls per second to the loop's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, inArray, sql } from "drizzle-orm";
import { freePort, type Stack, startWorker, type WorkerProcess } from "../dev/stack";
import { createDb } from "../src/db/client";
import { calls, campaignRecipients, organizations } from "../src/db/schema";
import { mapLimit } from "../src/lib/concurrency";
import {
  briefNumbers,
  campaignCalls,
  campaignRow,
  dialsPerNumber,
  insertCampaign,
  peakInFlight,
  recipientsOf,
  wakeThrough,
} from "../test/support/campaign-runner";
import { createBenchWorkspace } from "./setup";

export const CAMPAIGN_DEFAULTS = { recipients: 1_000, inFlight: 20, baseline: 200 };
export const CAMPAIGN_QUICK = { recipients: 100, inFlight: 20, baseline: 40 };

export interface CampaignBenchResult {
  recipients: number;
  maxInFlight: number;
  seconds: number;
  callsPerSecond: number;
  peakInFlight: number;
  /** The most dials the carrier saw for one attempt (1: none twice). */
  maxDialsPerAttempt: number;
  final: number;
  states: Record<string, number>;
  calls: number;
  restart: { atFinal: number; downSeconds: number; calling: number };
  baseline: { calls: number; seconds: number; callsPerSecond: number; peakInFlight: number };
  /** Campaign calls per second over the loop's. */
  ratio: number;
  failures: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FINAL = new Set(["completed", "voicemail", "no-answer", "busy", "failed", "canceled"]);

export async function runCampaignBench(
  stack: Stack,
  opts: { recipients: number; inFlight: number; baseline: number; log: (line: string) => void },
): Promise<CampaignBenchResult> {
  const { log } = opts;
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 4);
  const state = mkdtempSync(join(tmpdir(), "bench-campaign-"));
  const port = await freePort();
  // Calls left by the stopped worker are ended by their watchdog soon after: a short ring and grace.
  const vars = {
    ...stack.vars,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    CALL_RING_TIMEOUT_SECONDS: "5",
    CALL_WATCHDOG_GRACE_SECONDS: "5",
  };
  const start = () => startWorker(vars, { port, persistTo: state });
  let worker: WorkerProcess = await start();
  const failures: string[] = [];
  try {
    const ws = await createBenchWorkspace(stack.databaseUrl, stack.wsProxy);
    await db
      .update(organizations)
      .set({ maxCallsInFlight: opts.inFlight, creditsMicro: 10_000_000_000 })
      .where(eq(organizations.id, ws.organizationId));
    const api = (path: string, body?: unknown) =>
      fetch(`${worker.baseUrl}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const agentRes = await api("/v1/agents", {
      name: "Campaign bench",
      personaId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
      llmModel: "sandbox-chat",
      maxDurationSeconds: 10,
    });
    if (agentRes.status !== 201) throw new Error(`agent: ${agentRes.status} ${await agentRes.text()}`);
    const agent = (await agentRes.json()) as { id: string };

    // The baseline: the integrator's loop, 20 at a time, each call waited for until it ended.
    log(`campaigns: baseline, ${opts.baseline} calls through POST /v1/agents/:id/calls, ${opts.inFlight} at a time…`);
    const loopNumbers = briefNumbers(opts.baseline);
    const loopIds: string[] = [];
    const loopStart = Date.now();
    await mapLimit(loopNumbers, opts.inFlight, async (phoneNumber) => {
      const res = await api(`/v1/agents/${agent.id}/calls`, { phoneNumber });
      if (res.status !== 201) {
        failures.push(`baseline call: ${res.status}`);
        return;
      }
      const { id } = (await res.json()) as { id: string };
      loopIds.push(id);
      for (;;) {
        const [row] = await db.select({ endedAt: calls.endedAt }).from(calls).where(eq(calls.id, id));
        if (row?.endedAt) return;
        await sleep(100);
      }
    });
    const loopSeconds = (Date.now() - loopStart) / 1000;
    const loopRows = loopIds.length > 0 ? await db.select().from(calls).where(inArray(calls.id, loopIds)) : [];

    log(`campaigns: ${opts.recipients} recipients at ${opts.inFlight} in flight, the worker restarted halfway…`);
    const numbers = briefNumbers(opts.recipients);
    const id = await insertCampaign(db, {
      organizationId: ws.organizationId,
      agentId: agent.id,
      numbers,
      maxCallsInFlight: opts.inFlight,
      // A call cut by the restart ends `watchdog-timeout` (failed): tried again.
      retry: { maxAttempts: 3, delaySeconds: 1, on: ["failed"] },
    });
    const started = Date.now();
    await wakeThrough(worker);
    const finalCount = async () =>
      Number(
        (
          await db
            .select({ n: sql<number>`count(*)` })
            .from(campaignRecipients)
            .where(sql`${campaignRecipients.campaignId} = ${id} and ${campaignRecipients.state} not in ('pending', 'calling')`)
        )[0]?.n ?? 0,
      );
    const restart = { atFinal: 0, downSeconds: 0, calling: 0 };
    let restarted = false;
    let lastCron = Date.now();
    const deadline = Date.now() + Math.max(600_000, opts.recipients * 600);
    for (;;) {
      const done = (await campaignRow(db, id))?.status === "completed";
      if (done) break;
      if (Date.now() > deadline) {
        failures.push("the campaign did not complete in time");
        break;
      }
      const final = await finalCount();
      if (!restarted && final >= opts.recipients / 2) {
        restarted = true;
        restart.atFinal = final;
        restart.calling = (await recipientsOf(db, id)).filter((r) => r.state === "calling").length;
        const down = Date.now();
        await worker.stop();
        worker = await start();
        restart.downSeconds = (Date.now() - down) / 1000;
        log(`campaigns: worker restarted at ${final} final, ${restart.calling} calling, down ${restart.downSeconds.toFixed(1)} s`);
      }
      if (Date.now() - lastCron > 5_000) {
        lastCron = Date.now();
        await wakeThrough(worker).catch(() => undefined);
      }
      await sleep(250);
    }
    const seconds = (Date.now() - started) / 1000;

    const recipients = await recipientsOf(db, id);
    const placed = await campaignCalls(db, id);
    const dials = await dialsPerNumber(
      stack.vars,
      placed.map((c) => c.id),
      numbers,
    );
    let maxDialsPerAttempt = 0;
    for (const r of recipients) {
      const n = dials.get(r.phoneNumber) ?? 0;
      if (n !== r.attempts) failures.push(`${r.phoneNumber}: ${n} dials for ${r.attempts} attempts`);
      // Per attempt: the calls (one per key) and the carrier's dials of the number over its attempts.
      maxDialsPerAttempt = Math.max(maxDialsPerAttempt, r.attempts > 0 ? Math.ceil(n / r.attempts) : n);
    }
    const keys = new Set(placed.map((c) => c.idempotencyKey));
    if (keys.size !== placed.length) failures.push(`${placed.length - keys.size} attempts with two calls`);
    const states: Record<string, number> = {};
    for (const r of recipients) states[r.state] = (states[r.state] ?? 0) + 1;
    const final = recipients.filter((r) => FINAL.has(r.state)).length;
    if (final !== opts.recipients) failures.push(`${opts.recipients - final} recipients not final`);
    const peak = peakInFlight(placed);
    if (peak > opts.inFlight) failures.push(`peak in flight ${peak} > ${opts.inFlight}`);
    const callsPerSecond = placed.length / seconds;
    const loopPerSecond = loopRows.length / loopSeconds;
    return {
      recipients: opts.recipients,
      maxInFlight: opts.inFlight,
      seconds,
      callsPerSecond,
      peakInFlight: peak,
      maxDialsPerAttempt,
      final,
      states,
      calls: placed.length,
      restart,
      baseline: { calls: loopRows.length, seconds: loopSeconds, callsPerSecond: loopPerSecond, peakInFlight: peakInFlight(loopRows) },
      ratio: callsPerSecond / loopPerSecond,
      failures,
    };
  } finally {
    await worker.stop();
    await pool.end();
    rmSync(state, { recursive: true, force: true });
  }
}

export function campaignLines(r: CampaignBenchResult): string[] {
  const states = Object.entries(r.states)
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
  return [
    `Campaign (bench/campaigns.ts), ${r.recipients} recipients at ${r.maxInFlight} in flight on the sandbox's brief callee:`,
    `  finished in ${r.seconds.toFixed(1)} s: ${r.calls} calls, ${r.callsPerSecond.toFixed(2)} calls/s; every recipient final: ${r.final}/${r.recipients} (${states})`,
    `  peak in flight ${r.peakInFlight} (limit ${r.maxInFlight}); dials per attempt at most ${r.maxDialsPerAttempt}`,
    `  worker restarted at ${r.restart.atFinal} final with ${r.restart.calling} calling, down ${r.restart.downSeconds.toFixed(1)} s: ${r.failures.length === 0 ? "nothing lost" : "see below"}`,
    `  baseline, an integrator's loop of POST /v1/agents/:id/calls ${r.maxInFlight} at a time: ${r.baseline.calls} calls in ${r.baseline.seconds.toFixed(1)} s, ${r.baseline.callsPerSecond.toFixed(2)} calls/s (peak ${r.baseline.peakInFlight}); ratio ${r.ratio.toFixed(2)}×`,
    ...r.failures.slice(0, 10).map((f) => `  FAILED: ${f}`),
  ];
}
