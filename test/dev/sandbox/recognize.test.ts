// In a phone call the callee's speech reaches the worker as 8 kHz μ-law and the worker uploads
// its capture (a plain 16-bit WAV, no metadata) for transcription. The provider sandbox must give
// back the text of speech it synthesized itself, and never a wrong text for anything else.
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { MATCH_THRESHOLD, SpeechMemory } from "../../../dev/sandbox/recognize";
import { buildWav } from "../../../dev/sandbox/wav";
import { mulawDecode, mulawEncode, pcm16FromBytes, pcm16ToBytes, resample } from "../../../src/calls/codec";

let sandbox: ProviderSandbox;
let other: ProviderSandbox; // a second sandbox: what it says, `sandbox` never heard
let client: OpenAI;

beforeAll(async () => {
  [sandbox, other] = await Promise.all([startProviderSandbox(), startProviderSandbox()]);
  client = new OpenAI({ baseURL: sandbox.url, apiKey: sandbox.apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await sandbox?.stop();
  await other?.stop();
});

/** Speech from a sandbox as OpenAI's pcm: 16-bit, 24 kHz. */
async function speak(from: ProviderSandbox, input: string, voice = "nova"): Promise<Int16Array> {
  const res = await fetch(`${from.url}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${from.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice, input, response_format: "pcm" }),
  });
  expect(res.status).toBe(200);
  return pcm16FromBytes(new Uint8Array(await res.arrayBuffer()));
}

/** What the worker hears on the phone: 8 kHz μ-law, decoded again. */
const overPhone = (pcm24k: Int16Array) => mulawDecode(mulawEncode(resample(pcm24k, 24_000, 8_000)));

/** The worker's capture: optional silence around the speech, at 8 or 16 kHz, as a plain WAV. */
function capture(heard8k: Int16Array, rate: 8_000 | 16_000, silenceMs = 0): Buffer {
  const padded = new Int16Array(heard8k.length + silenceMs * 16);
  padded.set(heard8k, silenceMs * 8);
  return buildWav(Buffer.from(pcm16ToBytes(resample(padded, 8_000, rate))), rate);
}

async function transcribe(wav: Buffer): Promise<{ text: string; sandbox: { recognized: boolean; match?: string; score?: number } }> {
  const v = await client.audio.transcriptions.create({
    model: "whisper-1",
    file: await toFile(wav, "call.wav"),
    response_format: "verbose_json",
  });
  return v as unknown as { text: string; sandbox: { recognized: boolean; match?: string; score?: number } };
}

const LINES = [
  "Hi, I would like to book an appointment.",
  "Tuesday morning works for me.",
  "No, that's all. Goodbye.",
  "Great, I have booked you in for Tuesday at nine.",
];

describe("provider sandbox: transcribing its own speech after a phone line", () => {
  it("recognises each line from 8 kHz μ-law, captured at 8 or 16 kHz with silence around it", async () => {
    const heard = await Promise.all(LINES.map(async (line) => overPhone(await speak(sandbox, line))));
    for (const [i, line] of LINES.entries()) {
      const h = heard[i] as Int16Array;
      const at8 = await transcribe(capture(h, 8_000));
      expect(at8.text).toBe(line);
      expect(at8.sandbox).toMatchObject({ recognized: true, match: "envelope" });
      expect(at8.sandbox.score).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
      expect((await transcribe(capture(h, 16_000, 400))).text).toBe(line);
      // the worker's voice activity detection clipped the first 60 ms
      expect((await transcribe(capture(h.subarray(480), 16_000, 200))).text).toBe(line);
    }
  });

  it("never answers with the wrong text: another voice's sentence, noise, silence, a tone, half a line", async () => {
    const line = LINES[0] as string;
    const heard = overPhone(await speak(sandbox, line));
    // A sentence this sandbox never said (the other sandbox did), of about the same length.
    const stranger = overPhone(await speak(other, "Hi, I would like to cancel my appointment."));
    expect(stranger.length / heard.length).toBeGreaterThan(0.85);
    expect(stranger.length / heard.length).toBeLessThan(1.2);
    expect((await transcribe(capture(stranger, 8_000))).text).toBe("");

    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const noise = Int16Array.from(heard, () => Math.round((random() * 2 - 1) * 8_000));
    // Noise in bursts shaped like syllables: loudness that comes and goes, as speech does.
    const bursts = Int16Array.from(heard, (_, i) => Math.round((random() * 2 - 1) * 8_000 * Math.abs(Math.sin(i / 1_300))));
    const tone = Int16Array.from(heard, (_, i) => Math.round(Math.sin((i * 2 * Math.PI * 440) / 8_000) * 8_000));
    const silence = new Int16Array(heard.length);
    for (const audio of [noise, bursts, tone, silence]) {
      const t = await transcribe(capture(audio, 16_000));
      expect(t.text).toBe("");
      expect(t.sandbox.recognized).toBe(false);
    }
    // Half of the line is not the line (nor any other).
    expect(["", line]).toContain((await transcribe(capture(heard.subarray(0, heard.length >> 1), 8_000))).text);
    expect((await transcribe(capture(heard.subarray(0, heard.length >> 1), 8_000))).text).not.toBe(LINES[1]);
  });

  it("tells apart two lines it said, in two voices", async () => {
    const a = overPhone(await speak(sandbox, "Tuesday afternoon works for me.", "alloy"));
    const b = overPhone(await speak(sandbox, "Wednesday morning works for me.", "alloy"));
    expect((await transcribe(capture(a, 8_000))).text).toBe("Tuesday afternoon works for me.");
    expect((await transcribe(capture(b, 16_000))).text).toBe("Wednesday morning works for me.");
    const nova = overPhone(await speak(sandbox, "Tuesday afternoon works for me.", "nova"));
    expect((await transcribe(capture(nova, 8_000))).text).toBe("Tuesday afternoon works for me.");
  });
});

describe("speech memory", () => {
  /** A speech-like signal: noise under a loudness envelope of `syllables` random bumps. */
  function fakeSpeech(seed: number, seconds: number): Int16Array {
    let s = seed;
    const random = () => {
      s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
      return s / 2 ** 31;
    };
    const bumps = Array.from({ length: Math.round(seconds * 4) }, () => 0.2 + random() * 0.8);
    return Int16Array.from({ length: seconds * 8_000 }, (_, i) => {
      const at = (i / 8_000) * 4;
      const level = (bumps[Math.floor(at)] ?? 0) * Math.sin(Math.PI * (at % 1));
      return Math.round((random() * 2 - 1) * 10_000 * level);
    });
  }

  it("remembers the last N speeches and forgets the oldest", () => {
    const memory = new SpeechMemory(2);
    const [a, b, c] = [fakeSpeech(1, 2), fakeSpeech(2, 2), fakeSpeech(3, 2)];
    memory.remember("a", "first", a, 8_000);
    memory.remember("b", "second", b, 8_000);
    expect(memory.recall(a, 8_000)?.text).toBe("first");
    memory.remember("c", "third", c, 8_000);
    expect(memory.count).toBe(2);
    expect(memory.recall(a, 8_000)).toBeUndefined();
    expect(memory.recall(b, 8_000)?.text).toBe("second");
    expect(memory.recall(c, 8_000)?.text).toBe("third");
  });

  it("matches nothing shorter than half a second", () => {
    const memory = new SpeechMemory();
    const short = fakeSpeech(4, 0.25);
    memory.remember("s", "Yes.", short, 8_000);
    expect(memory.count).toBe(0);
    expect(memory.recall(short, 8_000)).toBeUndefined();
  });
});
