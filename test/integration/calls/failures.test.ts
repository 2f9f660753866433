// Calls that fail, and say so: a number that cannot be dialled, a busy line, no answer, the
// agent's LLM failing mid-call (on the phone and on the web), a web call nobody joins, and the
// watchdog's backstop (the cron trigger's sweep, src/calls/watchdog.ts) ending a call whose
// session died. Each ends with its reason and fires call.failed, charging only what succeeded.
// (The Durable Object alarm, the watchdog's first line, ends the web call nobody joined.)
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sweepStaleCalls } from "../../../src/calls/watchdog";
import { calls } from "../../../src/db/schema";
import { BUSY, CONVERSATION, finished, INVALID, NO_ANSWER, place, UNREACHABLE } from "../../support/callees";
import { createAgent, joinWebCall, refusedUpgrade, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, json, testDb, type Workspace } from "../../support/harness";
import { asCronRun, triggerCron } from "../../support/scheduled";

const { subscribed } = receiversPerTest();

/** A web call whose session connected and then vanished: in progress, its deadline two minutes ago. */
async function stuckCall(ws: Workspace, agentId: string): Promise<string> {
  const { call } = await json<{ call: { id: string } }>(await ws.api(`/v1/agents/${agentId}/web-call`, { method: "POST", json: {} }));
  await testDb()
    .update(calls)
    .set({ status: "in-progress", startedAt: sql`now() - interval '10 minutes'`, deadlineAt: sql`now() - interval '2 minutes'` })
    .where(eq(calls.id, call.id));
  return call.id;
}

describe("how phone calls end", () => {
  it("an invalid number: 201 with the call failed, and call.failed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws);
    const call = await place(ws, agent.id, { phoneNumber: INVALID });
    expect(call).toMatchObject({ status: "failed", endedReason: "dial-failed", endedReasonCategory: "telephony" });
    const [event] = await receiver.waitFor(1);
    expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { id: call.id, status: "failed" } });
  });

  it.each([
    [UNREACHABLE, "failed", "dial-failed"],
    [BUSY, "busy", "customer-busy"],
    [NO_ANSWER, "no-answer", "customer-did-not-answer"],
  ])(
    "%s ends %s (%s) with call.failed",
    async (number, status, reason) => {
      const ws = await createWorkspace();
      const { receiver } = await subscribed(ws, { channels: ["voice"] });
      const agent = await createAgent(ws);
      const placed = await place(ws, agent.id, { phoneNumber: number });
      const call = await waitForCall(ws, placed.id, finished, 20_000);
      expect(call).toMatchObject({ status, endedReason: reason, durationSeconds: null });
      const [event] = await receiver.waitFor(1);
      expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { status } });
      expect(receiver.received).toHaveLength(1);
    },
    30_000,
  );

  it("the agent's LLM fails mid-call: llm-provider-error and call.failed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, { llmModel: "fault-500" });
    const placed = await place(ws, agent.id, { phoneNumber: CONVERSATION });
    const call = await waitForCall(ws, placed.id, finished, 30_000);
    expect(call).toMatchObject({ status: "failed", endedReason: "llm-provider-error", endedReasonCategory: "provider" });
    expect(call.cost.llm.credits).toBe(0);
    const events = (await receiver.waitFor(2)).map((r) => JSON.parse(r.body).event);
    expect(events.slice(0, 2)).toEqual(["call.started", "call.failed"]);
  }, 40_000);
});

describe("web calls: how they end", () => {
  it("fails the call when the agent's LLM fails mid-call, charging only what succeeded", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, { llmModel: "fault-500" });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const client = await joinWebCall(webCall.url);
    await client.say(await speech("Hello, is anyone there?", WEB_RATE));
    const ended = await client.waitForEvent((e) => e.type === "ended", 20_000);
    expect(ended.reason).toBe("llm-provider-error");
    const done = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
    expect(done).toMatchObject({ status: "failed", endedReason: "llm-provider-error", endedReasonCategory: "provider" });
    expect(done.transcript.turns.map((t) => t.role)).toEqual(["user"]);
    expect(done.cost.stt.credits).toBeGreaterThan(0);
    expect(done.cost.llm.credits).toBe(0);
    const events = (await receiver.waitFor(2)).map((r) => JSON.parse(r.body).event);
    expect(events.slice(0, 2)).toEqual(["call.started", "call.failed"]);
  }, 40_000);

  it("refuses a wrong token, and the watchdog cancels a web call nobody joined", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws);
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string; token: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    // The token with its last character changed (to one it is not: a fixed "x" is the token itself one time in 62).
    const last = webCall.token.at(-1) === "x" ? "y" : "x";
    const wrong = webCall.url.replace(webCall.token, `${webCall.token.slice(0, -1)}${last}`);
    expect(await refusedUpgrade(wrong)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    expect(await refusedUpgrade(webCall.url.replace(/\?token=.*/, ""))).toMatchObject({ status: 401 });
    // Token lifetime 10 s + watchdog slack 5 s in the test stack (test/setup/stack.ts).
    const done = await waitForCall(ws, call.id, (c) => c.status !== "queued", 30_000);
    expect(done).toMatchObject({ status: "canceled", endedReason: "web-call-not-joined" });
    expect(await refusedUpgrade(webCall.url)).toMatchObject({ status: 401 });
    const [event] = await receiver.waitFor(1);
    expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { id: call.id, status: "canceled" } });
  }, 45_000);
});

describe("watchdog sweep", () => {
  it("ends a call stuck in progress past its deadline, once, and fires call.failed", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const id = await stuckCall(ws, (await createAgent(ws)).id);
    expect(await asCronRun(sweepStaleCalls)).toBeGreaterThanOrEqual(1);
    const ended = await waitForCall(ws, id, (c) => c.status !== "in-progress");
    expect(ended).toMatchObject({ status: "failed", endedReason: "watchdog-timeout", endedReasonCategory: "platform" });
    const [event] = await receiver.waitFor(1);
    expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { id, status: "failed" } });
    // Swept calls are over: a second sweep ends nothing of this workspace and sends nothing (the
    // run returns once its deliveries were made).
    await asCronRun(sweepStaleCalls);
    expect(receiver.received).toHaveLength(1);
  });

  it("runs as the worker's cron trigger (wrangler dev's /__scheduled)", async () => {
    const ws = await createWorkspace();
    const id = await stuckCall(ws, (await createAgent(ws)).id);
    expect((await triggerCron()).status).toBe(200);
    const ended = await waitForCall(ws, id, (c) => c.status !== "in-progress");
    expect(ended).toMatchObject({ status: "failed", endedReason: "watchdog-timeout" });
  });
});
