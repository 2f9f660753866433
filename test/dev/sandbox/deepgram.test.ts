// The provider sandbox speaks Deepgram's live transcription well enough that the platform's
// Deepgram adapter runs against it unchanged (only the base URL, and Node's way of opening the
// socket, differ): Nova's interim and final Results, speech_final, UtteranceEnd, Finalize and
// CloseStream's Metadata; Flux's turn events, TurnResumed when the caller goes on after an eager
// end of turn; refusals at the upgrade; failures and garbage mid-stream. Audio is streamed faster
// than real time: the sandbox times everything by the audio it receives, so nothing here depends
// on the wall clock.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { IDLE_TIMEOUT_MS, ListenSession, parseListenQuery, VAD_RMS } from "../../../dev/sandbox/deepgram";
import { PROFILES, withLatencyProfile } from "../../../dev/sandbox/latency";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { SpeechMemory } from "../../../dev/sandbox/recognize";
import { resample16 } from "../../../dev/sandbox/wav";
import { Deepgram } from "../../../src/providers/deepgram";
import { ProviderError } from "../../../src/providers/http";
import type { SttStream, SttStreamEvent, SttStreamOptions } from "../../../src/providers/types";
import { nodeConnect } from "../../support/ws-connect";

let sandbox: ProviderSandbox;

beforeAll(async () => {
  sandbox = await startProviderSandbox({ latency: "instant" });
});
afterAll(() => sandbox.stop());

const A = "Hi, I would like to book an appointment.";
const B = "Tuesday morning works for me.";

const adapter = (base = sandbox.deepgram.url, key = sandbox.deepgram.apiKey) =>
  new Deepgram(base, key, { connect: nodeConnect, timeoutMs: 5_000, keepAliveMs: 0 });

/** The sandbox's speech (so it remembers it) at `rate`, without eSpeak's silence before and after it. */
async function speak(text: string, rate: number, voice = "nova"): Promise<Int16Array> {
  const res = await fetch(`${sandbox.url}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice, input: text, response_format: "pcm" }),
  });
  expect(res.status).toBe(200);
  const pcm = resample16(Buffer.from(await res.arrayBuffer()), 24_000, rate);
  const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const frame = rate / 50;
  let end = samples.length;
  const loud = (at: number) => Math.sqrt(samples.subarray(at, at + frame).reduce((s, v) => s + v * v, 0) / frame) >= VAD_RMS;
  while (end > frame && !loud(end - frame)) end -= frame;
  let start = 0;
  while (start + frame < end && !loud(start)) start += frame;
  return samples.slice(start, end);
}

const silence = (ms: number, rate: number) => new Int16Array((rate * ms) / 1000);

/** Sends audio in 20 ms chunks, as a call does (only faster). */
function play(stream: SttStream, rate: number, ...parts: Int16Array[]): number {
  let n = 0;
  for (const part of parts) {
    for (let at = 0; at < part.length; at += rate / 50) stream.send(part.subarray(at, at + rate / 50));
    n += part.length;
  }
  return n;
}

/** Opens a stream that records its events; `until` resolves at the first event that matches. */
async function open(opts: Partial<SttStreamOptions> & { model: string; sampleRate: number }, provider = adapter()) {
  const events: SttStreamEvent[] = [];
  const waiters: Array<{ match: (e: SttStreamEvent) => boolean; resolve: (e: SttStreamEvent) => void }> = [];
  const stream = await provider.open({ encoding: "linear16", ...opts }, (e) => {
    events.push(e);
    for (const w of [...waiters])
      if (w.match(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
  });
  const until = (match: (e: SttStreamEvent) => boolean) =>
    new Promise<SttStreamEvent>((resolve) => {
      const seen = events.find(match);
      if (seen) resolve(seen);
      else waiters.push({ match, resolve });
    });
  return { stream, events, until };
}

const words = (text: string) => text.split(" ").filter(Boolean);
const isPrefix = (part: string, of: string) => words(of).slice(0, words(part).length).join(" ") === part;

describe("provider sandbox: Deepgram live transcription, Nova (/v1/listen)", () => {
  it("gives interim results while the caller speaks, the final with speech_final after the endpointing silence, then UtteranceEnd", async () => {
    const rate = 16_000;
    const [a, b] = await Promise.all([speak(A, rate), speak(B, rate, "onyx")]);
    const { stream, events, until } = await open({ model: "nova-3", sampleRate: rate, endpointingMs: 300, utteranceEndMs: 1000 });
    let sent = play(stream, rate, a, silence(1200, rate));
    await until((e) => e.type === "utterance-end");

    const finals = events.filter((e) => e.type === "final");
    expect(finals).toEqual([{ type: "final", text: A, speechFinal: true }]);
    const interims = events.filter((e) => e.type === "interim").map((e) => (e as { text: string }).text);
    expect(interims.length).toBeGreaterThan(2);
    for (const text of interims) expect(isPrefix(text, A), text).toBe(true);
    expect(interims.some((t) => words(t).length > 0 && words(t).length < words(A).length)).toBe(true); // words while speaking
    const at = (type: string) => events.findIndex((e) => e.type === type);
    expect(events.findLastIndex((e) => e.type === "interim")).toBeLessThan(at("final"));
    expect(at("final")).toBeLessThan(at("utterance-end"));

    // Finalize flushes what was said without waiting for the silence: a final, not speech_final.
    sent += play(stream, rate, b);
    stream.finalize();
    expect(await until((e) => e.type === "final" && e.text === B)).toEqual({ type: "final", text: B, speechFinal: false });

    // CloseStream: Deepgram's Metadata says how much audio it got.
    const seconds = await stream.close();
    expect(seconds).toBeCloseTo(sent / rate, 2);
    expect(stream.closed).toBe(true);
    expect(events.some((e) => e.type === "error")).toBe(false);
    stream.send(a); // ignored once closed
    expect(sandbox.requests.filter((r) => r.path === "/v1/listen").at(-1)).toMatchObject({
      status: 101,
      model: "nova-3",
      profile: "instant",
    });
  });

  it("ignores messages it does not understand (not JSON, unknown types, missing fields) and goes on", async () => {
    const rate = 16_000;
    const a = await speak(A, rate);
    const { stream, events, until } = await open({ model: "fault-garbage", sampleRate: rate, endpointingMs: 300 });
    play(stream, rate, a, silence(400, rate));
    await until((e) => e.type === "final");
    expect(events.filter((e) => e.type === "final")).toEqual([{ type: "final", text: A, speechFinal: true }]);
    expect(events.every((e) => e.type === "interim" || e.type === "final")).toBe(true);
    expect(stream.closed).toBe(false);
    await stream.close();
  });
});

describe("provider sandbox: Deepgram live transcription, Flux (/v2/listen)", () => {
  it("starts a turn, updates it, ends it eagerly and then for good", async () => {
    const rate = 8_000;
    const a = await speak(A, rate);
    const { stream, events, until } = await open({ model: "flux-general-en", sampleRate: rate, eagerEotThreshold: 0.5 });
    const sent = play(stream, rate, a, silence(600, rate));
    const end = await until((e) => e.type === "end-of-turn");
    expect(end).toMatchObject({ type: "end-of-turn", text: A });
    expect((end as { confidence: number }).confidence).toBeGreaterThanOrEqual(0.7);
    const changes = events.filter((e) => e.type !== "update");
    expect(changes.map((e) => e.type)).toEqual(["start-of-turn", "eager-end-of-turn", "end-of-turn"]);
    expect(changes[1]).toMatchObject({ text: A });
    const updates = events.filter((e) => e.type === "update").map((e) => (e as { text: string }).text);
    for (const text of updates) expect(isPrefix(text, A), text).toBe(true);
    expect(updates.some((t) => words(t).length > 0 && words(t).length < words(A).length)).toBe(true);
    expect(await stream.close()).toBeCloseTo(sent / rate, 2);
  });

  it("resumes the turn when the caller goes on after an eager end of turn (steady: eager after 110 ms of silence, the end after 260 ms)", async () => {
    const rate = 8_000;
    const [a, b] = await Promise.all([speak(A, rate), speak(B, rate, "onyx")]);
    const steady = adapter(withLatencyProfile(sandbox.deepgram.url, "steady"));
    const { stream, events, until } = await open({ model: "flux-general-en", sampleRate: rate, eagerEotThreshold: 0.5 }, steady);
    play(stream, rate, a, silence(180, rate), b, silence(600, rate));
    await until((e) => e.type === "end-of-turn");
    expect(events.filter((e) => e.type !== "update")).toEqual([
      { type: "start-of-turn" },
      { type: "eager-end-of-turn", text: A, confidence: expect.any(Number) },
      { type: "turn-resumed" },
      { type: "eager-end-of-turn", text: `${A} ${B}`, confidence: expect.any(Number) },
      { type: "end-of-turn", text: `${A} ${B}`, confidence: expect.any(Number) },
    ]);
    expect(sandbox.requests.filter((r) => r.path === "/v2/listen").at(-1)).toMatchObject({ status: 101, profile: "steady" });
    await stream.close();
  });

  it("does not end the turn on a sentence broken off (only eot_timeout_ms does), and no eager end of turn", async () => {
    const rate = 8_000;
    const a = await speak(A, rate);
    const { stream, events, until } = await open({
      model: "flux-general-en",
      sampleRate: rate,
      eagerEotThreshold: 0.5,
      eotTimeoutMs: 1000,
    });
    const sent = play(stream, rate, a.subarray(0, Math.round(a.length * 0.6)), silence(1500, rate));
    const end = (await until((e) => e.type === "end-of-turn")) as { text: string; confidence: number };
    expect(events.filter((e) => e.type !== "update").map((e) => e.type)).toEqual(["start-of-turn", "end-of-turn"]);
    expect(words(end.text).length).toBeGreaterThan(0);
    expect(words(end.text).length).toBeLessThan(words(A).length);
    expect(isPrefix(end.text, A)).toBe(true);
    expect(end.confidence).toBeLessThan(0.5);
    // audio_window_end of the end of turn: 1 s of silence after the speech, not the 1.5 s sent
    expect(await stream.close()).toBeCloseTo(sent / rate, 2);
  });
});

describe("provider sandbox: Deepgram refusals and failures", () => {
  it("refuses a wrong key at the upgrade (401): the adapter's open rejects with a ProviderError that does not carry the key", async () => {
    const key = "dg_wrong_key_0123456789abcdef";
    const err = await open({ model: "nova-3", sampleRate: 16_000 }, adapter(sandbox.deepgram.url, key)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ failure: "rejected", status: 401 });
    expect((err as Error).message).toMatch(/Invalid credentials/);
    expect((err as Error).message).not.toContain(key);
    expect(sandbox.requests.at(-1)).toMatchObject({ path: "/v1/listen", status: 401 });
  });

  it("maps refusals as the HTTP adapters do: 429 rate_limited with Retry-After, 5xx upstream, a bad query rejected", async () => {
    const open1 = (model: string, more: Partial<SttStreamOptions> = {}) =>
      open({ model, sampleRate: 16_000, ...more }).catch((e: unknown) => e);
    expect(await open1("fault-429")).toMatchObject({ failure: "rate_limited", status: 429, retryAfterSeconds: 1 });
    expect(await open1("fault-500")).toMatchObject({ failure: "upstream", status: 500 });
    expect(await open1("flux-general-en", { eotThreshold: 0.2 })).toMatchObject({ failure: "rejected", status: 400 });
  });

  it("a close the adapter did not ask for (1011) is one error event, and the stream is closed", async () => {
    const rate = 16_000;
    const { stream, events, until } = await open({ model: "fault-1011", sampleRate: rate });
    const sent = play(stream, rate, silence(100, rate));
    const error = await until((e) => e.type === "error");
    expect(error).toEqual({ type: "error", message: expect.stringContaining("1011") });
    expect(stream.closed).toBe(true);
    expect(await stream.close()).toBeCloseTo(sent / rate, 3);
    expect(events.filter((e) => e.type === "error")).toHaveLength(1);
  });

  it("a cancelled open never opens", async () => {
    const ctl = new AbortController();
    ctl.abort();
    await expect(open({ model: "nova-3", sampleRate: 16_000, signal: ctl.signal })).rejects.toMatchObject({ failure: "canceled" });
  });
});

describe("provider sandbox: Deepgram timing (a session with fake timers)", () => {
  it("sends Nova's results the profile's finalizeMs after their audio (steady: 250 ms), in order, and closes an idle stream (NET-0001)", async () => {
    const rate = 16_000;
    const a = await speak(A, rate);
    const memory = new SpeechMemory();
    memory.remember("a", A, a, rate);
    const sent: Array<{ at: number; message: Record<string, unknown> }> = [];
    const closes: Array<{ code: number; reason: string }> = [];
    vi.useFakeTimers({ now: 0 });
    try {
      const opts = parseListenQuery(
        "nova",
        new URLSearchParams({ model: "nova-3", encoding: "linear16", sample_rate: "16000", endpointing: "300", punctuate: "true" }),
      );
      const session = new ListenSession(opts, PROFILES.steady, memory, {
        send: (text) => sent.push({ at: Date.now(), message: JSON.parse(text) }),
        close: (code, reason) => closes.push({ code, reason }),
      });
      const bytes = (s: Int16Array) => new Uint8Array(s.buffer, s.byteOffset, s.byteLength);
      session.audio(bytes(a));
      session.audio(bytes(silence(400, rate)));
      expect(sent).toEqual([]); // all of it due 250 ms from now
      vi.advanceTimersByTime(249);
      expect(sent).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(sent.map((s) => s.at)).toEqual(sent.map(() => 250));
      const finals = sent.filter((s) => s.message.is_final);
      expect(finals).toHaveLength(1);
      expect(finals[0]?.message).toMatchObject({ type: "Results", speech_final: true, channel: { alternatives: [{ transcript: A }] } });
      // Nothing more from the client for 10 s: Deepgram's NET-0001.
      vi.advanceTimersByTime(IDLE_TIMEOUT_MS);
      expect(closes).toEqual([{ code: 1011, reason: "NET-0001" }]);
      session.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("without punctuate, Nova's transcripts are lower case without punctuation, as Deepgram's", async () => {
    const rate = 16_000;
    const a = await speak(A, rate);
    const memory = new SpeechMemory();
    memory.remember("a", A, a, rate);
    const sent: Array<Record<string, unknown>> = [];
    const opts = parseListenQuery("nova", new URLSearchParams({ model: "nova-3", encoding: "linear16", sample_rate: "16000" }));
    const session = new ListenSession(opts, PROFILES.instant, memory, { send: (t) => sent.push(JSON.parse(t)), close: () => {} });
    session.audio(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    session.text(JSON.stringify({ type: "CloseStream" }));
    const finals = sent
      .filter((m) => m.is_final)
      .map((m) => (m as { channel: { alternatives: Array<{ transcript: string }> } }).channel.alternatives[0]?.transcript);
    expect(finals.join(" ").replace(/\s+/g, " ").trim()).toBe("hi i would like to book an appointment");
    expect(sent.at(-1)).toMatchObject({ type: "Metadata", channels: 1, duration: Math.round((a.length / rate) * 1000) / 1000 });
    session.stop();
  });
});
