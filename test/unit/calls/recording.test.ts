// The stored recording (src/calls/recording.ts, docs/calls.md "Recordings"): gzipped, μ-law for
// phone calls and 16-bit PCM for web calls, and served back as the 16-bit PCM stereo WAV the API
// has always answered: the phone call's audio exactly as it was on the line, the web call's exactly.
import { describe, expect, it } from "vitest";
import { mulawDecode, mulawEncode } from "../../../src/calls/codec";
import { PCM16_HEADER_BYTES, Recorder, servedRecording } from "../../../src/calls/recording";

/** A voice-like signal: a warbling tone with a slow envelope. */
const voice = (n: number, rate: number, seed: number) =>
  Int16Array.from({ length: n }, (_, i) =>
    Math.round(9_000 * Math.sin((2 * Math.PI * (180 + 40 * Math.sin(i / rate + seed)) * i) / rate) * Math.abs(Math.sin((Math.PI * i) / n))),
  );

/** A call: the caller speaks 2 s, then the agent answers 2 s while the caller is silent, twice. */
function record(rate: number) {
  const rec = new Recorder(rate, 60);
  const frame = rate / 50;
  const caller: Int16Array[] = [];
  const say = (samples: Int16Array) => {
    for (let i = 0; i < samples.length; i += frame) {
      const f = samples.slice(i, i + frame);
      caller.push(f);
      rec.caller(f);
    }
  };
  const agent: Array<{ atMs: number; samples: Int16Array }> = [];
  for (let turn = 0; turn < 2; turn++) {
    say(voice(rate * 2, rate, turn));
    const samples = voice(rate * 2, rate, turn + 10);
    const atMs = (caller.length * 20) as number;
    agent.push({ atMs, samples });
    rec.agent(samples, atMs);
    say(new Int16Array(rate * 2));
  }
  return { rec, caller: Int16Array.from(caller.flatMap((f) => [...f])), agent };
}

async function served(bytes: Uint8Array, metadata?: Record<string, string>) {
  const out = servedRecording(new Blob([bytes]).stream() as ReadableStream<Uint8Array>, bytes.length, metadata);
  const body = new Uint8Array(await new Response(out.body).arrayBuffer());
  return { body, size: out.size, view: new DataView(body.buffer) };
}

describe("recordings", () => {
  it("stores a phone call as gzipped μ-law and serves it as the 16-bit WAV of the audio on the line", async () => {
    const { rec, caller, agent } = record(8_000);
    const stored = await rec.stored();
    if (!stored) throw new Error("nothing stored");
    expect(stored.metadata).toEqual({ encoding: "mulaw", rate: "8000", frames: String(caller.length) });
    expect([...stored.bytes.subarray(0, 2)]).toEqual([0x1f, 0x8b]); // gzip
    const { body, size, view } = await served(stored.bytes, stored.metadata);
    expect(body.length).toBe(size);
    expect(size).toBe(PCM16_HEADER_BYTES + caller.length * 4);
    // At most a third of the 16-bit WAV served (μ-law halves it; gzip takes the silent track).
    expect(stored.bytes.length).toBeLessThan(size / 3);
    expect(new TextDecoder().decode(body.subarray(0, 4))).toBe("RIFF");
    expect(view.getUint32(4, true)).toBe(size - 8);
    expect([view.getUint16(20, true), view.getUint16(22, true), view.getUint32(24, true), view.getUint16(34, true)]).toEqual([
      1, 2, 8_000, 16,
    ]);
    expect(view.getUint32(40, true)).toBe(caller.length * 4);
    const left = Int16Array.from({ length: caller.length }, (_, i) => view.getInt16(PCM16_HEADER_BYTES + i * 4, true));
    const right = Int16Array.from({ length: caller.length }, (_, i) => view.getInt16(PCM16_HEADER_BYTES + i * 4 + 2, true));
    expect(left).toEqual(mulawDecode(mulawEncode(caller)));
    const first = agent[0] as { atMs: number; samples: Int16Array };
    const at = (first.atMs / 1000) * 8_000;
    expect(right.subarray(at, at + first.samples.length)).toEqual(mulawDecode(mulawEncode(first.samples)));
    expect(right.subarray(0, at).every((s) => s === 0)).toBe(true);
  });

  it("stores a web call as gzipped 16-bit PCM and serves it back exactly", async () => {
    const { rec, caller } = record(16_000);
    const stored = await rec.stored();
    if (!stored) throw new Error("nothing stored");
    expect(stored.metadata.encoding).toBe("pcm16");
    const { body, size, view } = await served(stored.bytes, stored.metadata);
    expect(body.length).toBe(size);
    expect(stored.bytes.length).toBeLessThan(size * 0.8);
    expect(view.getUint32(24, true)).toBe(16_000);
    const left = Int16Array.from({ length: caller.length }, (_, i) => view.getInt16(PCM16_HEADER_BYTES + i * 4, true));
    expect(left).toEqual(caller);
  });

  it("serves a recording stored before compression (a plain WAV, no metadata) as it is; stores nothing for an empty call", async () => {
    const wav = new Uint8Array([82, 73, 70, 70, 1, 2, 3, 4]);
    const { body, size } = await served(wav, {});
    expect(size).toBe(wav.length);
    expect(body).toEqual(wav);
    expect(await new Recorder(8_000, 60).stored()).toBeNull();
  });

  it("gives its exact length (rounded once, where it is stored), cut to what was played when the agent was cut off", async () => {
    const rec = new Recorder(8_000, 60);
    for (let i = 0; i < 1045; i++) rec.caller(new Int16Array(80)); // 10.45 s of the caller
    rec.agent(voice(8_000 * 2, 8_000, 1), 10_000); // 2 s of the agent sent at 10 s, past the caller's end
    rec.cutAgent(10_450); // the caller hung up at 10.45 s: the rest was never played
    const stored = await rec.stored();
    expect(stored?.seconds).toBeCloseTo(10.45, 6); // not 12 (the unplayed audio), nor 10.5 (rounded to 0.1)
    // Rounded once where it is stored: 10. Rounded to 0.1 first it became 10.5, then 11, half a second off the audio.
    expect(Math.round(stored?.seconds ?? 0)).toBe(10);
  });
});
