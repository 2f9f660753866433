// What a call is not charged for (docs/calls.md, "Credits" and "Analysis"): the greeting made while
// a phone rang when nobody answered (busy, no answer: nobody heard it), and an analysis of a call
// where the caller said nothing (none is made; the call says why).
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { organizations, usageEvents } from "../../../src/db/schema";
import { BUSY, finished, NO_ANSWER, place } from "../../support/callees";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, json, testDb } from "../../support/harness";

const { subscribed } = receiversPerTest();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const usageOf = (callId: string) => testDb().select().from(usageEvents).where(eq(usageEvents.callId, callId));
const credits = async (orgId: string) =>
  Number((await testDb().select({ c: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, orgId)))[0]?.c);

beforeAll(async () => {
  await speech("Warming up.", WEB_RATE); // the sandbox's speech thread starts cold (see happy.test.ts)
}, 30_000);

describe("the greeting made while the phone rang", () => {
  it.each([
    [NO_ANSWER, "no-answer"],
    [BUSY, "busy"],
  ])(
    "%s (%s): nobody heard it, so the call is charged nothing for it",
    async (number, status) => {
      const ws = await createWorkspace();
      const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme Dental calling about your appointment tomorrow." });
      const before = await credits(ws.organizationId);
      const placed = await place(ws, agent.id, { phoneNumber: number });
      const call = await waitForCall(ws, placed.id, finished, 20_000);
      expect(call).toMatchObject({ status, durationSeconds: null, analysisSkipped: "not-connected" });
      await sleep(1_500); // the greeting's speech (made while it rang) has long been made by now
      expect(await usageOf(placed.id)).toEqual([]);
      expect((await waitForCall(ws, placed.id, () => true)).cost).toMatchObject({ credits: 0, tts: { quantity: 0, credits: 0 } });
      expect(await credits(ws.organizationId)).toBe(before);
    },
    30_000,
  );
});

describe("a call where the caller said nothing", () => {
  it("is not analysed nor charged for an analysis, and says why; call.analyzed does not follow", async () => {
    const ws = await createWorkspace();
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const greeting = "Hello, this is the web agent. How can I help?";
    const agent = await createAgent(ws, { firstMessage: greeting, analysisPlan: { successCriteria: ["The caller was greeted"] } });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    await client.silence(500);
    client.ws.close();
    await client.closed;

    const done = await waitForCall(ws, call.id, (c) => c.status === "completed");
    expect(done).toMatchObject({ endedReason: "customer-ended-call", analysisSkipped: "no-caller-speech" });
    expect(done.transcript.turns).toEqual([expect.objectContaining({ role: "agent", text: greeting })]);
    const events = await receiver.waitFor(2);
    const completed = JSON.parse(events[1]?.body ?? "{}");
    expect(completed).toMatchObject({ event: "call.completed", call: { analysisSkipped: "no-caller-speech" }, analysis: null });
    await sleep(2_000); // an analysis would have been made and sent by now
    const after = await waitForCall(ws, call.id, () => true);
    expect(after).toMatchObject({ analysis: null, report: null, analysisError: null, analysisSkipped: "no-caller-speech" });
    expect(after.cost.llm).toMatchObject({ quantity: 0, credits: 0 });
    expect((await usageOf(call.id)).filter((r) => r.modality === "chat")).toEqual([]);
    expect(receiver.received.map((r) => JSON.parse(r.body).event)).toEqual(["call.started", "call.completed"]);
  }, 40_000);
});
