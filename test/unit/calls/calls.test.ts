// The pure parts of live calls: the state machine, μ-law, resampling, turn detection, the
// per-call prompt variables, Twilio's signature scheme and TwiML.
import { describe, expect, it } from "vitest";
import { linearToMulaw, MULAW_SILENCE, mulawDecode, mulawEncode, resample, rms } from "../../../src/calls/codec";
import { renderTemplate } from "../../../src/calls/prompt";
import { ACTIVE_STATUSES, CALL_STATUSES, canMove, ENDED_REASONS, statusFor, TERMINAL } from "../../../src/calls/states";
import { TurnDetector, type TurnEvent } from "../../../src/calls/turns";
import { streamTwiml, twilioSignature } from "../../../src/telephony/twilio";

const tone = (n: number, amplitude: number, rate = 8000, hz = 440) =>
  Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));

describe("call state machine", () => {
  it("moves forward only, and never out of an ended state", () => {
    expect(canMove("queued", "ringing")).toBe(true);
    expect(canMove("ringing", "in-progress")).toBe(true);
    expect(canMove("in-progress", "completed")).toBe(true);
    expect(canMove("in-progress", "ringing")).toBe(false);
    expect(canMove("ringing", "queued")).toBe(false);
    expect(canMove("queued", "completed")).toBe(false); // a call that never connected did not complete
    expect(canMove("in-progress", "busy")).toBe(false);
    for (const ended of TERMINAL) for (const to of CALL_STATUSES) expect(canMove(ended, to)).toBe(false);
    for (const s of CALL_STATUSES) expect(canMove(s, s)).toBe(false); // a duplicate is not a move
  });

  it("gives every ended reason a terminal status reachable from a live one", () => {
    for (const reason of Object.keys(ENDED_REASONS) as Array<keyof typeof ENDED_REASONS>) {
      const to = statusFor(reason);
      expect(TERMINAL.has(to)).toBe(true);
      expect(ACTIVE_STATUSES.some((from) => canMove(from, to))).toBe(true);
    }
  });
});

describe("μ-law", () => {
  it("encodes silence as 0xFF and round-trips within G.711's quantisation", () => {
    expect(MULAW_SILENCE).toBe(0xff);
    expect(linearToMulaw(32767)).toBe(0x80);
    expect(linearToMulaw(-32768)).toBe(0x00);
    const samples = tone(800, 12000);
    const back = mulawDecode(mulawEncode(samples));
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i] as number;
      expect(Math.abs((back[i] as number) - s)).toBeLessThanOrEqual(Math.max(8, Math.abs(s) / 16));
    }
  });

  it("resamples 24 kHz to 8 kHz keeping length and loudness", () => {
    const src = tone(2400, 10000, 24000);
    const out = resample(src, 24000, 8000);
    expect(out.length).toBe(800);
    expect(rms(out) / rms(src)).toBeGreaterThan(0.9);
    expect(resample(out, 8000, 16000).length).toBe(1600);
  });
});

describe("turn detection", () => {
  const frame = (amplitude: number) => (amplitude === 0 ? new Int16Array(160) : tone(160, amplitude));

  it("finds a turn: start after the start delay, end after the endpointing silence", () => {
    const d = new TurnDetector({ sampleRate: 8000, endpointingMs: 500 });
    const events: TurnEvent[] = [];
    let t = 0;
    const next = () => {
      t += 20;
      return t;
    };
    for (let i = 0; i < 25; i++) events.push(...d.push(frame(0), next()));
    expect(events).toEqual([]);
    for (let i = 0; i < 50; i++) events.push(...d.push(frame(8000), next()));
    expect(events.map((e) => e.type)).toEqual(["speech-start"]);
    expect(d.inSpeech).toBe(true);
    for (let i = 0; i < 24; i++) events.push(...d.push(frame(0), next()));
    expect(events).toHaveLength(1); // 480 ms of silence: not yet
    events.push(...d.push(frame(0), next()));
    const end = events[1];
    expect(end?.type).toBe("turn-end");
    if (end?.type !== "turn-end") throw new Error("unreachable");
    expect(end.speechEndAt - end.speechStartAt).toBeCloseTo(1000, -2);
    // the audio holds the speech, the pre-roll and the trailing silence
    expect(end.audio.length).toBeGreaterThanOrEqual(50 * 160);
  });

  it("hands over the turn still inside the endpointing wait when the call ends (flush), and nothing outside speech", () => {
    const d = new TurnDetector({ sampleRate: 8000, endpointingMs: 500 });
    expect(d.flush(0)).toBeNull();
    let t = 0;
    const at = () => {
      t += 20;
      return t;
    };
    for (let i = 0; i < 25; i++) d.push(frame(0), at());
    for (let i = 0; i < 40; i++) d.push(frame(8000), at());
    for (let i = 0; i < 10; i++) expect(d.push(frame(0), at())).toEqual([]); // 200 ms of the 500 ms wait
    const pending = d.flush(t);
    expect(pending?.type).toBe("turn-end");
    expect(pending?.audio.length).toBeGreaterThanOrEqual(50 * 160);
    expect((pending?.speechEndAt ?? 0) - (pending?.speechStartAt ?? 0)).toBeCloseTo(800, -2);
    expect(d.inSpeech).toBe(false);
    expect(d.flush(t)).toBeNull();
  });

  it("ignores a click shorter than the start delay and quiet noise", () => {
    const d = new TurnDetector({ sampleRate: 8000, endpointingMs: 300 });
    const events: TurnEvent[] = [];
    for (let i = 0; i < 100; i++) events.push(...d.push(i === 50 ? frame(20000) : frame(150), i * 20));
    expect(events).toEqual([]);
  });
});

describe("per-call variables", () => {
  it("replaces known names and leaves unknown ones as written", () => {
    expect(renderTemplate("Hi {{ name }}, about {{topic}} and {{missing}}.", { name: "Ada", topic: "{{name}}" })).toBe(
      "Hi Ada, about {{name}} and {{missing}}.",
    );
  });
});

describe("Twilio", () => {
  it("signs like Twilio's published example (auth token 12345)", async () => {
    const params = new URLSearchParams({
      CallSid: "CA1234567890ABCDE",
      Caller: "+14158675309",
      Digits: "1234",
      From: "+14158675309",
      To: "+18005551212",
    });
    const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
    expect(await twilioSignature("12345", url, params)).toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
    params.set("Digits", "9999");
    expect(await twilioSignature("12345", url, params)).not.toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
  });

  it("escapes the stream URL and parameters in TwiML", () => {
    const twiml = streamTwiml("wss://api.example.com/telephony/twilio/media/x?a=1&b=2", { token: `a"<b>&` });
    expect(twiml).toContain('url="wss://api.example.com/telephony/twilio/media/x?a=1&#38;b=2"');
    expect(twiml).toContain('<Parameter name="token" value="a&#34;&#60;b&#62;&#38;"/>');
  });
});
