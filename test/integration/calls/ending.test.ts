// How a live phone call's ending holds up against the carrier (docs/calls.md, "Twilio"): the
// callee hangs up, and Twilio's signed `completed` status callback arrives while the session is
// still ending (keeping the caller's last words, uploading the recording, writing the call), and
// again as duplicates and late. The session's ending is the only one: one `call.completed`, with the
// recording and the whole transcript, including what the caller said just before hanging up
// inside the endpointing wait.
//
// The call runs on a worker of this file's own whose provider answers with a hosted provider's
// timings (the sandbox's `steady` profile: a transcript 300 ms after its upload). The caller's last
// line is then still being transcribed when they hang up, so the session's ending lasts a few
// hundred ms: long enough for the carrier's callbacks to arrive inside it every time, as they do
// against real providers. On the instant sandbox the ending takes a few ms, and whether a callback
// lands in it is luck.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANG_UP_LINE } from "../../../dev/sandbox/callee";
import { withLatencyProfile } from "../../../dev/sandbox/latency";
import { startWorker } from "../../../dev/stack";
import { rms } from "../../../src/calls/codec";
import { HANGS_UP, place } from "../../support/callees";
import {
  type CallView,
  createAgent,
  downloadRecording,
  postTwilioForm,
  providerCallId,
  speech,
  twilioSign,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { eventsWritten, receiversPerTest } from "../../support/deliveries";
import { createWorkspace, onWorker, stack } from "../../support/harness";

const { subscribed } = receiversPerTest();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Twilio's `completed` status callback for this call, signed as Twilio signs it, to the worker at `baseUrl`. */
function completedCallback(baseUrl: string, callId: string, sid: string): () => Promise<number> {
  const { vars } = stack();
  const path = `/telephony/twilio/status/${callId}`;
  const params = new URLSearchParams({
    AccountSid: vars.TWILIO_ACCOUNT_SID ?? "",
    CallSid: sid,
    CallStatus: "completed",
    CallDuration: "4",
    Direction: "outbound-api",
  });
  const signature = twilioSign(vars.TWILIO_AUTH_TOKEN ?? "", `${baseUrl}${path}`, params);
  return async () => {
    const res = await postTwilioForm(path, params, signature, baseUrl);
    await res.arrayBuffer();
    return res.status;
  };
}

const sandboxStatus = async (sid: string): Promise<string> => {
  const { vars } = stack();
  const auth = Buffer.from(`${vars.TWILIO_ACCOUNT_SID}:${vars.TWILIO_AUTH_TOKEN}`).toString("base64");
  const res = await fetch(`${vars.TWILIO_API_BASE_URL}/__sandbox/calls/${sid}`, { headers: { authorization: `Basic ${auth}` } });
  return ((await res.json()) as { status: string }).status;
};

let hosted: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  const { vars } = stack();
  [hosted] = await Promise.all([
    // Batch transcription: the ending transcribes the caller's last words, so it takes a moment in
    // which the carrier's callbacks arrive (streaming has the words already and ends at once).
    startWorker({ ...vars, CALL_TRANSCRIPTION: "batch", OPENAI_BASE_URL: withLatencyProfile(vars.OPENAI_BASE_URL ?? "", "steady") }),
    speech("Warming up.", WEB_RATE),
  ]);
}, 120_000);

afterAll(async () => {
  await hosted?.stop();
});

describe("the end of a phone call the callee hangs up", () => {
  it("completed callbacks during the ending, duplicated and late, leave the session's one ending with recording and whole transcript", async () => {
    // The call's session runs where it was placed (its Durable Object; locally each worker has its
    // own), and the carrier calls back there.
    const ws = onWorker(await createWorkspace(), hosted.baseUrl);
    const { receiver } = await subscribed(ws, { channels: ["voice"] });
    const agent = await createAgent(ws, { firstMessage: "Hello, this is Acme." });
    const placed = await place(ws, agent.id, { phoneNumber: HANGS_UP });
    const sid = await providerCallId(placed.id);
    const callback = completedCallback(hosted.baseUrl, placed.id, sid);

    // From the moment the callee hangs up (the sandbox's own `completed` callback goes out then), a
    // volley of signed duplicates at once, one more every 10 ms until the call is written as ended,
    // then more, late. One answered before the call's final write (its `endedAt`, the database's
    // clock on this machine) met the session ending: the race this test is about.
    const until = Date.now() + 40_000;
    while ((await sandboxStatus(sid)) !== "completed" && Date.now() < until) await sleep(5);
    const answers: Array<{ status: number; at: number }> = [];
    const send = () =>
      callback().then((status) => {
        answers.push({ status, at: Date.now() });
      });
    const burst: Array<Promise<void>> = Array.from({ length: 4 }, send);
    let ended: CallView | null = null;
    while (!ended && Date.now() < until) {
      await sleep(10);
      burst.push(send());
      const view = (await (await ws.api(`/v1/calls/${placed.id}`)).json()) as CallView;
      if (view.status !== "in-progress") ended = view;
    }
    await Promise.all(burst);
    for (let i = 0; i < 3; i++) await send();
    const writtenAt = Date.parse(ended?.endedAt ?? "");
    expect(answers.filter((a) => a.at < writtenAt).length).toBeGreaterThan(0);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([204]));

    const call = await waitForCall(ws, placed.id, (c) => c.analysis !== null || c.analysisError !== null, 30_000);
    expect(call).toMatchObject({ status: "completed", endedReason: "customer-ended-call" });
    expect(call.recording).not.toBeNull();
    // The recording (stored compressed) downloads as the 16-bit stereo WAV: both sides, its whole length.
    const recording = await downloadRecording(ws, placed.id);
    expect(recording.rate).toBe(8_000);
    expect(recording.caller.length / 8_000).toBeCloseTo(Number(call.recording?.durationSeconds), 0);
    expect(rms(recording.caller)).toBeGreaterThan(200);
    expect(rms(recording.agent)).toBeGreaterThan(200);

    // call.analyzed is the session's last event, and every callback was answered before it: all
    // that was fired is written.
    const got = await receiver.waitFor(3);
    expect(await eventsWritten(ws.organizationId)).toEqual(["call.started", "call.completed", "call.analyzed"]);
    const events = receiver.received.map((r) => JSON.parse(r.body) as { event: string; recording: unknown; transcript: unknown });
    expect(events.map((e) => e.event)).toEqual(["call.started", "call.completed", "call.analyzed"]);
    const completed = events[1];
    expect(completed?.recording).toMatchObject({ url: call.recording?.url });
    expect(completed?.transcript).toEqual(call.transcript);
    expect(got).toHaveLength(3);
    // The caller's only line, said just before the hang-up (inside the endpointing wait, its
    // transcription still under way), is kept; no reply was started, so none is there.
    const [first, line, ...rest] = call.transcript.turns;
    expect([first?.role, first?.text]).toEqual(["agent", "Hello, this is Acme."]);
    expect([line?.role, line?.text]).toEqual(["user", HANG_UP_LINE]);
    expect(rest).toEqual([]);
  }, 90_000);
});
