// The campaign runner (docs/campaigns.md, "How a campaign runs") against the telephony sandbox:
// pacing under the campaign's and the workspace's limits, retries with their delay, a pause, an
// agent or caller id gone, two runners racing, a restart's leftovers, and the schedule's windows.
// Campaigns are written straight into the tables as running (the API's start does that, then wakes
// the runner); the runner is woken through the worker's cron trigger, its backstop.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkerProcess } from "../../../dev/stack";
import { claimDue } from "../../../src/campaigns/queries/runner";
import { runCampaign } from "../../../src/campaigns/runner/run";
import { isOpen } from "../../../src/campaigns/runner/schedule";
import { agents, campaignRecipients, campaigns, organizations } from "../../../src/db/schema";
import { BUSY, NO_ANSWER } from "../../support/callees";
import { createAgent } from "../../support/calls";
import {
  briefNumbers,
  campaignCalls,
  campaignRow,
  cancelCampaigns,
  dialsPerNumber,
  insertCampaign,
  peakInFlight,
  recipientsOf,
  startCampaignWorker,
  wakeThrough,
} from "../../support/campaign-runner";
import { createWorkspace, stack, testDb } from "../../support/harness";
import { asCronRun } from "../../support/scheduled";

const FINAL = new Set(["completed", "voicemail", "no-answer", "busy", "failed", "canceled"]);
const LONG = 90_000;

let workerA: WorkerProcess;
let workerB: WorkerProcess;
const started: string[] = [];

beforeAll(async () => {
  const { vars } = stack();
  [workerA, workerB] = await Promise.all([startCampaignWorker(vars), startCampaignWorker(vars)]);
}, 180_000);

afterAll(async () => {
  await cancelCampaigns(testDb(), started);
  await Promise.all([workerA?.stop(), workerB?.stop()]);
});

async function newCampaign(input: Omit<Parameters<typeof insertCampaign>[1], "organizationId" | "agentId"> & { agentId?: string }) {
  const ws = await createWorkspace();
  const agentId = input.agentId ?? (await createAgent(ws)).id;
  const id = await insertCampaign(testDb(), { ...input, organizationId: ws.organizationId, agentId });
  started.push(id);
  return { ws, agentId, id };
}

/** One run of the campaign's runner in this process, with no way to place a call (none may be placed). */
const runHere = (campaignId: string) =>
  asCronRun((deps) =>
    runCampaign({
      ctx: {
        ...deps,
        publicOrigin: "http://127.0.0.1:9",
        callSessions: () => {
          throw new Error("a call was placed");
        },
      },
      input: { campaignId },
    }),
  );

const statusOf = async (id: string) => (await campaignRow(testDb(), id))?.status;

describe("a campaign's run", () => {
  it(
    "30 recipients at 5 in flight: every recipient final, one dial per attempt, never more than 5 at once, busy and no-answer retried after the delay",
    async () => {
      const numbers = [...briefNumbers(28), BUSY, NO_ANSWER];
      const { id, ws } = await newCampaign({
        numbers,
        maxCallsInFlight: 5,
        retry: { maxAttempts: 2, delaySeconds: 1, on: ["busy", "no-answer"] },
      });
      // Sampled while it runs too: the counters the triggers keep never pass the limits.
      let sampledPeak = 0;
      const sampling = setInterval(async () => {
        const row = await campaignRow(testDb(), id);
        sampledPeak = Math.max(sampledPeak, row?.callsInFlight ?? 0);
      }, 100);
      try {
        await wakeThrough(workerA);
        await expect.poll(() => statusOf(id), { timeout: 80_000 }).toBe("completed");
      } finally {
        clearInterval(sampling);
      }

      const recipients = await recipientsOf(testDb(), id);
      expect(recipients.every((r) => FINAL.has(r.state))).toBe(true);
      const byNumber = new Map(recipients.map((r) => [r.phoneNumber, r]));
      expect(byNumber.get(BUSY)).toMatchObject({ state: "busy", attempts: 2, lastEndedReason: "customer-busy" });
      expect(byNumber.get(NO_ANSWER)).toMatchObject({ state: "no-answer", attempts: 2, lastEndedReason: "customer-did-not-answer" });
      for (const n of numbers.slice(0, 28)) expect(byNumber.get(n)).toMatchObject({ state: "completed", attempts: 1 });

      const placed = await campaignCalls(testDb(), id);
      expect(placed).toHaveLength(32);
      expect(new Set(placed.map((c) => c.idempotencyKey)).size).toBe(32);
      expect(peakInFlight(placed)).toBeLessThanOrEqual(5);
      expect(peakInFlight(placed)).toBeGreaterThan(1); // it did pace, not dial one by one
      expect(sampledPeak).toBeLessThanOrEqual(5);
      // The carrier saw exactly one dial per attempt.
      const dials = await dialsPerNumber(
        stack().vars,
        placed.map((c) => c.id),
        numbers,
      );
      for (const r of recipients) expect([r.phoneNumber, dials.get(r.phoneNumber)]).toEqual([r.phoneNumber, r.attempts]);
      // The retry waited its delay after the first attempt ended.
      for (const n of [BUSY, NO_ANSWER]) {
        const [first, second] = placed.filter((c) => c.toNumber === n).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
        expect(second?.createdAt.getTime() ?? 0).toBeGreaterThanOrEqual(
          (first?.endedAt?.getTime() ?? Number.POSITIVE_INFINITY) + 1_000 - 5,
        );
      }
      // The workspace's count came back to zero with the campaign's.
      const [org] = await testDb().select().from(organizations).where(eq(organizations.id, ws.organizationId));
      expect([org?.callsInFlight, (await campaignRow(testDb(), id))?.callsInFlight]).toEqual([0, 0]);
      expect((await campaignRow(testDb(), id))?.completedAt).toBeInstanceOf(Date);
    },
    LONG,
  );

  it(
    "two runners racing (two workers, each with its own Durable Object) never pass the workspace's limit nor dial an attempt twice",
    async () => {
      const numbers = briefNumbers(12);
      const { id, ws } = await newCampaign({ numbers, maxCallsInFlight: 4 });
      await testDb().update(organizations).set({ maxCallsInFlight: 2 }).where(eq(organizations.id, ws.organizationId));
      await Promise.all([wakeThrough(workerA), wakeThrough(workerB), wakeThrough(workerA)]);
      await expect.poll(() => statusOf(id), { timeout: 80_000 }).toBe("completed");

      const recipients = await recipientsOf(testDb(), id);
      expect(recipients.map((r) => [r.state, r.attempts])).toEqual(numbers.map(() => ["completed", 1]));
      const placed = await campaignCalls(testDb(), id);
      expect(placed).toHaveLength(12);
      expect(peakInFlight(placed)).toBeLessThanOrEqual(2);
      const dials = await dialsPerNumber(
        stack().vars,
        placed.map((c) => c.id),
        numbers,
      );
      expect(numbers.map((n) => dials.get(n))).toEqual(numbers.map(() => 1));
    },
    LONG,
  );

  it(
    "a paused campaign places no new call: the calls in flight finish, a run while paused dials nothing, resuming completes it",
    async () => {
      const numbers = briefNumbers(8);
      const { id } = await newCampaign({ numbers, maxCallsInFlight: 2 });
      await wakeThrough(workerA);
      await expect.poll(async () => (await campaignCalls(testDb(), id)).length).toBeGreaterThan(0);
      await testDb().update(campaigns).set({ status: "paused" }).where(eq(campaigns.id, id));
      // Every claim made before the pause is visible now (the claim reads the campaign FOR SHARE); no other recipient is dialled.
      const claimed = new Set((await recipientsOf(testDb(), id)).filter((r) => r.attempts > 0).map((r) => r.id));
      expect(claimed.size).toBeGreaterThan(0);
      await expect.poll(async () => (await recipientsOf(testDb(), id)).filter((r) => r.state === "calling").length).toBe(0);

      // A run of the paused campaign (the one its calls' ends woke, made here where we can wait for it) places nothing.
      expect(await runHere(id)).toEqual({ next: null, placed: 0 });
      const dialled = (await campaignCalls(testDb(), id)).map((c) => c.campaignRecipientId as string);
      expect(dialled.length).toBeGreaterThan(0);
      expect(dialled.filter((r) => !claimed.has(r))).toEqual([]);
      const waiting = (await recipientsOf(testDb(), id)).filter((r) => !dialled.includes(r.id));
      expect(waiting.map((r) => [r.state, r.attempts])).toEqual(waiting.map(() => ["pending", 0]));

      await testDb().update(campaigns).set({ status: "running" }).where(eq(campaigns.id, id));
      await wakeThrough(workerA);
      await expect.poll(() => statusOf(id), { timeout: 60_000 }).toBe("completed");
      expect(await campaignCalls(testDb(), id)).toHaveLength(8);
    },
    LONG,
  );

  it("a claim waiting on a pause takes nothing, and a paused campaign is never claimed from", async () => {
    const { id } = await newCampaign({ numbers: briefNumbers(3), maxCallsInFlight: 3 });
    let claim: Promise<unknown> | undefined;
    await testDb().transaction(async (tx) => {
      await tx.update(campaigns).set({ status: "paused" }).where(eq(campaigns.id, id));
      // Started while the pause is not committed: it waits for it (the campaign's row is read FOR SHARE).
      claim = claimDue(testDb(), id, 3, null);
      await new Promise((r) => setTimeout(r, 200));
    });
    expect(await claim).toEqual([]);
    expect(await claimDue(testDb(), id, 3, null)).toEqual([]);
    expect((await recipientsOf(testDb(), id)).map((r) => [r.state, r.attempts])).toEqual([
      ["pending", 0],
      ["pending", 0],
      ["pending", 0],
    ]);
  });

  it(
    "the agent deleted mid-run pauses the campaign with a reason; a caller id that is not the workspace's pauses it at once",
    async () => {
      const { id, agentId } = await newCampaign({ numbers: briefNumbers(6), maxCallsInFlight: 1 });
      await wakeThrough(workerA);
      await expect.poll(async () => (await campaignCalls(testDb(), id)).length).toBeGreaterThan(0);
      await testDb().delete(agents).where(eq(agents.id, agentId));
      await expect.poll(() => statusOf(id)).toBe("paused");
      expect((await campaignRow(testDb(), id))?.pausedReason).toMatch(/agent was deleted/);
      const dialled = (await campaignCalls(testDb(), id)).length;
      expect(dialled).toBeLessThan(6);

      const other = await newCampaign({ numbers: briefNumbers(2), maxCallsInFlight: 1, fromNumbers: ["+15005550006", "+12025550199"] });
      await wakeThrough(workerA);
      await expect.poll(() => statusOf(other.id)).toBe("paused");
      expect((await campaignRow(testDb(), other.id))?.pausedReason).toMatch(
        /\+12025550199 is no longer one of the workspace's phone numbers/,
      );
      expect(await campaignCalls(testDb(), other.id)).toHaveLength(0);
    },
    LONG,
  );

  it(
    "a restart's leftovers: a claim with no call is dialled once; a call whose outcome was lost is not dialled again",
    async () => {
      const numbers = briefNumbers(2);
      const { id } = await newCampaign({ numbers: [numbers[0] as string], maxCallsInFlight: 2 });
      await wakeThrough(workerA);
      await expect.poll(() => statusOf(id), { timeout: 60_000 }).toBe("completed");
      const [done] = await recipientsOf(testDb(), id);
      if (!done) throw new Error("no recipient");

      // As a worker stopped mid-run leaves them: the first with its call placed but neither saved nor
      // its outcome recorded; a second claimed (attempt 1) and never dialled.
      await testDb().update(campaigns).set({ status: "running", completedAt: null }).where(eq(campaigns.id, id));
      const stale = sql`now() - interval '1 minute'`;
      await testDb()
        .update(campaignRecipients)
        .set({ state: "calling", lastCallId: null, updatedAt: stale })
        .where(eq(campaignRecipients.id, done.id));
      await testDb()
        .insert(campaignRecipients)
        .values({
          campaignId: id,
          organizationId: done.organizationId,
          row: 2,
          phoneNumber: numbers[1] as string,
          state: "calling",
          attempts: 1,
          updatedAt: new Date(Date.now() - 60_000),
        });
      await wakeThrough(workerA);
      await expect.poll(() => statusOf(id), { timeout: 60_000 }).toBe("completed");

      const recipients = await recipientsOf(testDb(), id);
      expect(recipients.map((r) => [r.state, r.attempts, r.lastCallId !== null])).toEqual([
        ["completed", 1, true],
        ["completed", 1, true],
      ]);
      const placed = await campaignCalls(testDb(), id);
      expect(placed.map((c) => c.idempotencyKey).sort()).toEqual(recipients.map((r) => `campaign:${r.id}:1`).sort());
      const dials = await dialsPerNumber(
        stack().vars,
        placed.map((c) => c.id),
        numbers,
      );
      expect(numbers.map((n) => dials.get(n))).toEqual([1, 1]);
    },
    LONG,
  );

  it(
    "places no call outside a recipient's window: the recipient whose zone is open now is called, the other waits",
    async () => {
      const schedule = { days: [1, 2, 3, 4, 5, 6, 7], start: "09:00", end: "17:00", timezone: "UTC" };
      // Fixed-offset zones: one where it is now between 10:00 and 16:00, one where it is night.
      const zones = Array.from({ length: 25 }, (_, i) => (i === 12 ? "Etc/GMT" : `Etc/GMT${i < 12 ? "-" : "+"}${Math.abs(12 - i)}`));
      const soon = new Date(Date.now() + 60 * 60_000);
      const open = zones.find((z) => isOpen(schedule, z, new Date(Date.now() - 60 * 60_000)) && isOpen(schedule, z, soon));
      const closed = zones.find((z) => !isOpen(schedule, z, new Date()) && !isOpen(schedule, z, soon));
      if (!open || !closed) throw new Error("no open and closed zones found");
      const [inWindow, outside] = briefNumbers(2) as [string, string];
      const { id } = await newCampaign({
        numbers: [
          { phoneNumber: outside, timezone: closed },
          { phoneNumber: inWindow, timezone: open },
        ],
        maxCallsInFlight: 2,
        schedule,
      });
      await wakeThrough(workerA);
      await expect.poll(async () => (await recipientsOf(testDb(), id)).map((r) => r.state)).toEqual(["pending", "completed"]);
      await wakeThrough(workerA);
      const placed = await campaignCalls(testDb(), id);
      expect(placed.map((c) => c.toNumber)).toEqual([inWindow]);
      expect(await statusOf(id)).toBe("running");
    },
    LONG,
  );
});
