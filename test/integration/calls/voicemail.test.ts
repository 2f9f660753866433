// Answering-machine detection on outbound calls (docs/campaigns.md, "Voicemail"): the agent's
// voicemail plan sent to the carrier as Twilio's async AMD, the telephony sandbox's verdicts by
// number (dev/sandbox/amd.ts: a person, an answering machine with a greeting and a beep, a fax),
// and what the call does with each: the conversation, a hang-up, or the message left after the
// beep; ended reason `voicemail`. The AMD callback's signature check and a verdict for an ended call.
import { beforeAll, describe, it } from "vitest";
import { CONVERSATION, FAX, finished, MACHINE, place } from "../../support/callees";
import {
  createAgent,
  postTwilioForm,
  providerCallId,
  settledSandboxCall,
  speech,
  twilioSign,
  WEB_RATE,
  waitForCall,
} from "../../support/calls";
import { createWorkspace, expectError, stack } from "../../support/harness";

const MESSAGE = "Hi {{customer}}, this is Acme Dental calling about your appointment tomorrow morning.";
const FIRST = "Hello, this is Acme Dental with a quick reminder. Is now a good time?";

// A cold speech thread could make the agent's first words wait (see happy.test.ts).
beforeAll(async () => {
  await speech("Warming up.", WEB_RATE);
}, 30_000);

describe.concurrent("answering-machine detection", () => {
  it("hangs up on a machine at once: reason voicemail, answeredBy stored, nothing said to it", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: FIRST, voicemail: { detection: "hang-up" } });
    const placed = await place(ws, agent.id, { phoneNumber: MACHINE });
    const sid = await providerCallId(placed.id);
    const machine = await settledSandboxCall(sid, 60_000);
    // `hang-up` asks for the verdict as soon as the carrier knows (Enable), not after the greeting.
    expect(machine.amd).toMatchObject({ mode: "Enable", answeredBy: "machine_start", httpStatus: 204 });
    expect(machine.endedBy).toBe("worker");
    expect(machine.heardFrames).toBe(0);
    expect(machine.machine?.recording.frames).toBe(0);
    const call = await waitForCall(ws, placed.id, finished);
    expect(call).toMatchObject({
      status: "completed",
      endedReason: "voicemail",
      endedReasonCategory: "customer",
      answeredBy: "machine_start",
    });
    expect(call.transcript.turns.filter((t) => t.role === "agent")).toEqual([]);
    // Hung up while the greeting played, before its beep.
    expect(machine.machine?.beep?.endAt).toBeUndefined();
  }, 60_000);

  it("leaves the message after the beep, its variable filled, then hangs up: reason voicemail", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: FIRST, voicemail: { detection: "leave-message", message: MESSAGE } });
    const placed = await place(ws, agent.id, { phoneNumber: MACHINE, variables: { customer: "Ada" } });
    const sid = await providerCallId(placed.id);
    const machine = await settledSandboxCall(sid, 90_000);
    expect(machine.amd).toMatchObject({ mode: "DetectMessageEnd", answeredBy: "machine_end_beep", httpStatus: 204 });
    expect(machine.endedBy).toBe("worker");
    const { greeting, beep, recording, transcript } = machine.machine ?? { recording: { frames: 0 } };
    expect(greeting?.endAt).toBeDefined();
    const beepEnd = beep?.endAt as number;
    expect(beepEnd).toBeGreaterThan(greeting?.endAt as number);
    // Nothing was said over the greeting or the beep: every agent utterance began after the beep.
    expect(machine.agentUtterances.length).toBeGreaterThan(0);
    for (const u of machine.agentUtterances) expect(u.firstFrameAt).toBeGreaterThanOrEqual(beepEnd);
    expect(recording.frames).toBeGreaterThan(50);
    // The machine's recording, transcribed: the message with its variable.
    expect(transcript).toBe("Hi Ada, this is Acme Dental calling about your appointment tomorrow morning.");
    const call = await waitForCall(ws, placed.id, finished);
    expect(call).toMatchObject({ status: "completed", endedReason: "voicemail", answeredBy: "machine_end_beep" });
    expect(call.transcript.turns.map((t) => [t.role, t.text])).toEqual([
      ["agent", "Hi Ada, this is Acme Dental calling about your appointment tomorrow morning."],
    ]);
  }, 90_000);

  it("talks to a person: answeredBy human, the first message heard once the verdict came", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, {
      firstMessage: FIRST,
      endCallPhrases: ["goodbye"],
      voicemail: { detection: "leave-message", message: MESSAGE },
    });
    const placed = await place(ws, agent.id, { phoneNumber: CONVERSATION, variables: { customer: "Ada" } });
    const sid = await providerCallId(placed.id);
    const person = await settledSandboxCall(sid, 90_000);
    expect(person.amd).toMatchObject({ mode: "DetectMessageEnd", answeredBy: "human", httpStatus: 204 });
    const call = await waitForCall(ws, placed.id, finished);
    expect(call).toMatchObject({ status: "completed", endedReason: "agent-ended-call", answeredBy: "human" });
    const turns = call.transcript.turns;
    expect(turns[0], JSON.stringify(turns)).toMatchObject({ role: "agent", text: FIRST });
    expect(turns.filter((t) => t.role === "user").length).toBeGreaterThan(0);
    expect(turns.some((t) => t.text.includes("Acme Dental calling about"))).toBe(false);
    // The agent held its first words until the verdict was posted.
    expect(person.agentUtterances[0]?.firstFrameAt).toBeGreaterThanOrEqual(person.amd?.sentAt as number);
  }, 90_000);

  for (const detection of ["hang-up", "leave-message"] as const) {
    it(`hangs up on a fax (${detection}): reason voicemail, answeredBy fax`, async ({ expect }) => {
      const ws = await createWorkspace();
      const agent = await createAgent(ws, { firstMessage: FIRST, voicemail: { detection, message: MESSAGE } });
      const placed = await place(ws, agent.id, { phoneNumber: FAX, variables: { customer: "Ada" } });
      const fax = await settledSandboxCall(await providerCallId(placed.id), 60_000);
      expect(fax.amd).toMatchObject({ answeredBy: "fax", httpStatus: 204 });
      expect(fax.heardFrames).toBe(0);
      const call = await waitForCall(ws, placed.id, finished);
      expect(call).toMatchObject({ endedReason: "voicemail", answeredBy: "fax" });
      expect(call.transcript.turns).toEqual([]);
    }, 60_000);
  }

  it("sends no detection when the agent's is off, and the machine is talked to like anyone", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: FIRST, silenceTimeoutSeconds: 5 });
    const placed = await place(ws, agent.id, { phoneNumber: MACHINE });
    const machine = await settledSandboxCall(await providerCallId(placed.id), 60_000);
    expect(machine.amd).toBeUndefined();
    // No hold: the first message starts at once, over the greeting.
    expect(machine.agentUtterances[0]?.firstFrameAt).toBeLessThan(machine.machine?.greeting?.endAt as number);
    const call = await waitForCall(ws, placed.id, finished);
    expect(call.answeredBy).toBeNull();
    expect(call.endedReason).not.toBe("voicemail");
  }, 60_000);
});

describe("the AMD callback", () => {
  it("refuses a bad signature and another call's CallSid, and a verdict for an ended call changes nothing", async ({ expect }) => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { voicemail: { detection: "hang-up" } });
    const placed = await place(ws, agent.id, { phoneNumber: FAX });
    const sid = await providerCallId(placed.id);
    const path = `/telephony/twilio/amd/${placed.id}`;
    const url = `${stack().baseUrl}${path}`;
    const token = stack().vars.TWILIO_AUTH_TOKEN ?? "";
    const params = new URLSearchParams({ CallSid: sid, AnsweredBy: "human", AccountSid: stack().vars.TWILIO_ACCOUNT_SID ?? "" });
    await expectError(await postTwilioForm(path, params), 401, "unauthorized");
    await expectError(await postTwilioForm(path, params, twilioSign("not-the-token", url, params)), 401, "unauthorized");
    const other = new URLSearchParams({ CallSid: `CA${"0".repeat(32)}`, AnsweredBy: "human" });
    await expectError(await postTwilioForm(path, other, twilioSign(token, url, other)), 404, "not_found");
    // None of them stored a verdict: the sandbox's fax verdict is the call's, and it hangs up.
    await settledSandboxCall(sid, 60_000);
    const ended = await waitForCall(ws, placed.id, finished);
    expect(ended).toMatchObject({ endedReason: "voicemail", answeredBy: "fax" });
    // A late (or replayed) verdict for the ended call: accepted, nothing changes.
    const late = new URLSearchParams({ CallSid: sid, AnsweredBy: "human", MachineDetectionDuration: "4100" });
    const res = await postTwilioForm(path, late, twilioSign(token, url, late));
    expect(res.status).toBe(204);
    const after = await waitForCall(ws, placed.id, finished);
    expect(after).toMatchObject({ status: ended.status, endedReason: "voicemail", answeredBy: "fax", endedAt: ended.endedAt });
  }, 60_000);
});
