// Speculative turn-taking in a real call with batch transcription (docs/calls.md, "Turn-taking";
// the fallback when no streaming provider is configured, run here on a worker of this file's own
// with CALL_TRANSCRIPTION=batch): the caller's turn is
// transcribed on a pause; a turn that ends in that pause is answered on that transcript (one
// transcription request for the turn), and a caller who pauses mid-turn then goes on makes the
// speculation stale: discarded (the platform's cost, not the caller's), and the turn transcribed
// once more, whole; the caller pays each turn's audio once.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { FRAME_MS, rms } from "../../../src/calls/codec";
import { calls, usageEvents } from "../../../src/db/schema";
import { createAgent, joinWebCall, speech, WEB_RATE } from "../../support/calls";
import { createWorkspace, json, onWorker, stack, testDb } from "../../support/harness";

/** The longest run of frames the worker's detector counts as silence (RMS ≤ 400) between the first and last loud frame, ms. */
function longestInnerPause(samples: Int16Array, rate: number): number {
  const n = (rate * FRAME_MS) / 1000;
  const loud: boolean[] = [];
  for (let i = 0; i + n <= samples.length; i += n) loud.push(rms(samples.subarray(i, i + n)) > 400);
  let longest = 0;
  let run = 0;
  for (const l of loud.slice(loud.indexOf(true), loud.lastIndexOf(true) + 1)) {
    run = l ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  return longest * FRAME_MS;
}

let batch: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  // the sandbox's speech thread starts cold: warmed at the same time
  [batch] = await Promise.all([startWorker({ ...stack().vars, CALL_TRANSCRIPTION: "batch" }), speech("Warming up.", WEB_RATE)]);
}, 120_000);

afterAll(async () => {
  await batch?.stop();
});

describe("speculative turn-taking", () => {
  it("commits the pause's transcript (one transcription per turn) and discards it when the caller goes on", async () => {
    const ws = onWorker(await createWorkspace(), batch.baseUrl);
    const agent = await createAgent(ws, {}); // no first message: the caller speaks first
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(res);

    // One line without a pause inside, and one whose full stop the sandbox's voice holds 300 ms:
    // longer than the 200 ms pause (CALL_PAUSE_MS), shorter than the 500 ms endpointing wait.
    const whole = await speech("Tuesday morning works for me.", WEB_RATE);
    const paused = await speech("No, that's all. Goodbye.", WEB_RATE);
    expect(longestInnerPause(whole, WEB_RATE)).toBeLessThan(200);
    expect(longestInnerPause(paused, WEB_RATE)).toBeGreaterThanOrEqual(240);
    expect(longestInnerPause(paused, WEB_RATE)).toBeLessThan(460);

    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    await client.say(whole, 1_000);
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    await client.say(paused, 1_000);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "user" && e.text === "No, that's all. Goodbye.");
    await client.waitForEvent(() => client.events.filter((e) => e.type === "mark").length >= 2); // the second reply played
    await client.played();
    client.ws.send(JSON.stringify({ type: "hangup" }));
    await client.closed;

    const [row] = await testDb().select({ status: calls.status, transcript: calls.transcript }).from(calls).where(eq(calls.id, call.id));
    expect(row?.status).toBe("completed");
    const user = (row?.transcript ?? []).filter((t) => t.role === "user");
    expect(user.map((t) => t.text)).toEqual(["Tuesday morning works for me.", "No, that's all. Goodbye."]);
    // The first turn ended in its first pause: its speculation was its transcript.
    expect(user[0]?.turnTaking).toMatchObject({ speculations: 1, discarded: 0, committed: true, transcriptions: 1 });
    // The second paused after "that's all." and went on: that speculation was discarded; the
    // one of the pause after "Goodbye." was committed.
    expect(user[1]?.turnTaking).toMatchObject({ speculations: 2, discarded: 1, committed: true, transcriptions: 2 });
    // A turn ends early only on a transcript that ends a sentence; otherwise after the whole wait.
    for (const t of user) {
      const tt = t.turnTaking;
      if (tt?.endedBy === "sentence") expect(tt.waitMs).toBeLessThan(480);
      else expect(tt?.waitMs).toBeGreaterThanOrEqual(480);
    }

    // The caller pays for each turn's audio once: three transcriptions were made (the discarded
    // one is the platform's cost, logged), two turns were charged, each for no more than the
    // audio the client sent for it (speech plus the trailing quiet up to the turn's end).
    const stt = await testDb()
      .select({ status: usageEvents.status, quantity: usageEvents.quantity })
      .from(usageEvents)
      .where(and(eq(usageEvents.callId, call.id), eq(usageEvents.modality, "stt")));
    expect(stt).toHaveLength(2);
    expect(stt.every((r) => r.status === 200 && r.quantity > 0)).toBe(true);
    const sentMs = ((whole.length + paused.length) / WEB_RATE) * 1000 + 2 * 1_000;
    expect(stt.reduce((sum, r) => sum + r.quantity, 0)).toBeLessThanOrEqual(sentMs);
  }, 60_000);

  it("follows the agent's turn-taking: a patient agent waits out its longest wait even after a full sentence", async () => {
    const ws = onWorker(await createWorkspace(), batch.baseUrl);
    const agent = await createAgent(ws, { turnTaking: { eagerness: "patient", maxWaitMs: 1_200 } });
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(res);
    const whole = await speech("Tuesday morning works for me.", WEB_RATE);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    await client.say(whole, 1_600);
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    client.ws.send(JSON.stringify({ type: "hangup" }));
    await client.closed;
    const [row] = await testDb().select({ transcript: calls.transcript }).from(calls).where(eq(calls.id, call.id));
    const [user] = (row?.transcript ?? []).filter((t) => t.role === "user");
    expect(user?.text).toBe("Tuesday morning works for me.");
    // Normal eagerness ended this turn on its sentence (above); patient waits for the 1,200 ms of quiet.
    expect(user?.turnTaking).toMatchObject({ endedBy: "silence", committed: true });
    // Frames are stamped as they arrive, so a busy machine's late timers shave a little off the
    // measured quiet; a normal agent's wait here is under 500 ms, so 1,000 still tells them apart.
    expect(user?.turnTaking?.waitMs).toBeGreaterThanOrEqual(1_000);
  }, 60_000);

  it('a false interruption: an "mhm" that cut the agent (batch: any speech cuts) is not answered; the agent says the rest', async () => {
    const ws = onWorker(await createWorkspace(), batch.baseUrl);
    const greeting =
      "Hello, thank you for calling Acme Dental. We are open from nine to five every weekday, and on Saturday mornings from nine to twelve.";
    const agent = await createAgent(ws, { firstMessage: greeting });
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(res);
    const mhm = await speech("Mhm.", WEB_RATE);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent"); // the greeting is playing
    await client.say(mhm, 1_500);
    await client.waitForEvent((e) => e.type === "clear", 10_000); // batch: the sound cut it
    // What the caller had not heard comes back as the agent's next words, and nothing answers "mhm".
    await client.waitForEvent((e) => e.type === "mark" && e.name !== "reply-1", 20_000);
    await client.played();
    client.ws.send(JSON.stringify({ type: "hangup" }));
    await client.closed;
    const [row] = await testDb().select({ transcript: calls.transcript }).from(calls).where(eq(calls.id, call.id));
    const turns = (row?.transcript ?? []).filter((t) => t.role !== "tool");
    expect(
      turns.map((t) => t.role),
      JSON.stringify(turns),
    ).toEqual(["agent", "user", "agent"]);
    const [cut, said, rest] = turns;
    expect(cut?.interrupted).toBe(true);
    expect(said?.text).toBe("Mhm.");
    expect(`${cut?.text} ${rest?.text}`.trim()).toBe(greeting); // the rest, not a reply to "mhm"
  }, 60_000);
});
