// The provider sandbox's latency profiles: `instant` answers at once; `realistic` answers with a
// hosted provider's timing (time to first token and tokens per second, time to first audio byte and
// real-time factor, a transcription's finalization delay), in the real wire formats, chosen by base
// URL, header or default; and a client that leaves mid-stream is seen leaving.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jittered, LATENCY_PROFILES, PROFILES, parseProfileName, splitProfilePath, withLatencyProfile } from "../../../dev/sandbox/latency";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";

let sandbox: ProviderSandbox;
let realistic: string;

beforeAll(async () => {
  sandbox = await startProviderSandbox();
  realistic = withLatencyProfile(sandbox.url, "realistic");
  // Load eSpeak (about 1.7 s, then 0.7 s for the next one), so a timed speech request measures the profile, not the start-up.
  for (const input of ["Warm up.", "Warm up again."])
    await fetch(`${sandbox.url}/audio/speech`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "tts-1", voice: "alloy", input, response_format: "pcm" }),
    }).then((r) => r.arrayBuffer());
}, 60_000); // eSpeak's start, which a busy machine makes many times longer
afterAll(() => sandbox.stop());

const R = PROFILES.realistic;
const headers = () => ({ authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" });
const messages = [{ role: "user" as const, content: "Hi, I would like to book an appointment on Tuesday morning please." }];

/** Reads a response body, noting when each chunk arrived (ms after `t0`). */
async function timedChunks(res: Response, t0: number): Promise<Array<{ at: number; bytes: Uint8Array }>> {
  const out: Array<{ at: number; bytes: Uint8Array }> = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push({ at: performance.now() - t0, bytes: value });
  }
}

describe("latency profiles: selection", () => {
  it("rewrites a base URL to a profile's, for both the OpenAI and the ElevenLabs side", () => {
    expect(withLatencyProfile("http://127.0.0.1:8790/v1", "realistic")).toBe("http://127.0.0.1:8790/latency/realistic/v1");
    expect(withLatencyProfile("http://127.0.0.1:8790/v1/", "instant")).toBe("http://127.0.0.1:8790/latency/instant/v1");
    expect(withLatencyProfile("http://127.0.0.1:8790", "realistic")).toBe("http://127.0.0.1:8790/latency/realistic");
    expect(splitProfilePath("/latency/realistic/v1/models")).toEqual({ profile: "realistic", path: "/v1/models" });
    expect(splitProfilePath("/v1/models")).toEqual({ profile: null, path: "/v1/models" });
  });

  it("spreads delays log-normally within [0.6, 2] × the median, and not at all with σ = 0", () => {
    const xs = Array.from({ length: 2000 }, () => jittered(100, 0.2));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...xs)).toBeLessThanOrEqual(200);
    const sorted = xs.sort((a, b) => a - b);
    expect(sorted[1000]).toBeGreaterThan(90);
    expect(sorted[1000]).toBeLessThan(110);
    expect(sorted[1900]).toBeGreaterThan(125); // p95 ≈ e^(0.2·1.645) = 1.39×
    expect(jittered(100, 0)).toBe(100);
  });

  it("an unknown profile is a 404 in the provider's own error shape; the default is instant", async () => {
    const res = await fetch(`${sandbox.url.replace("/v1", "/latency/glacial/v1")}/models`, { headers: headers() });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unknown_latency_profile");
    const bad = await fetch(`${sandbox.url}/models`, { headers: { ...headers(), "x-sandbox-latency": "glacial" } });
    expect(bad.status).toBe(404);
    expect(sandbox.latency).toBe("instant");
    await fetch(`${sandbox.url}/models`, { headers: headers() });
    expect(sandbox.requests.at(-1)?.profile).toBe("instant");
  });

  it("the header chooses the profile for one request", async () => {
    const t0 = performance.now();
    const res = await fetch(`${sandbox.url}/chat/completions`, {
      method: "POST",
      headers: { ...headers(), "x-sandbox-latency": "realistic" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages }),
    });
    expect(res.status).toBe(200);
    await res.json();
    expect(performance.now() - t0).toBeGreaterThan((R.chat?.ttftMs ?? 0) * 0.6);
    expect(sandbox.requests.at(-1)?.profile).toBe("realistic");
  });
});

describe("latency profiles: fast", () => {
  const F = PROFILES.fast;

  it("is a profile the names, paths and base URLs accept, for every provider side", () => {
    expect(LATENCY_PROFILES).toContain("fast");
    expect(parseProfileName("fast")).toBe("fast");
    expect(withLatencyProfile("http://127.0.0.1:8790/v1", "fast")).toBe("http://127.0.0.1:8790/latency/fast/v1");
    expect(withLatencyProfile("http://127.0.0.1:8790", "fast")).toBe("http://127.0.0.1:8790/latency/fast");
    expect(splitProfilePath("/latency/fast/v2/listen")).toEqual({ profile: "fast", path: "/v2/listen" });
    expect(splitProfilePath("/latency/fast/tts/websocket")).toEqual({ profile: "fast", path: "/tts/websocket" });
  });

  it("models the fastest published providers: a Groq-class LLM, Cartesia's 90 ms, Flux's 260 ms end of turn, a wider spread", () => {
    expect(F.chat).toEqual({ ttftMs: 160, tokensPerSecond: 330 });
    expect(F.speech?.cartesia.ttfbMs).toBe(90);
    expect(F.speech?.elevenlabs.ttfbMs).toBeLessThan(R.speech?.elevenlabs.ttfbMs ?? 0);
    expect(F.transcriptionStream.eotMs).toBe(260);
    expect(F.transcriptionStream.eagerEotMs).toBeLessThan(F.transcriptionStream.eotMs);
    // Groq's published p95/p50 of the time to first token, 280/120 ms: σ = ln(2.33)/1.645.
    expect(F.sigma).toBeCloseTo(Math.log(280 / 120) / 1.645, 1);
    // Faster than `realistic` to the first token and per token.
    expect(F.chat?.ttftMs ?? 0).toBeLessThan(R.chat?.ttftMs ?? 0);
    expect(F.chat?.tokensPerSecond ?? 0).toBeGreaterThan(R.chat?.tokensPerSecond ?? 0);
  });

  it("a chat on the fast base URL comes after about its time to first token, far sooner than on realistic", async () => {
    const fast = withLatencyProfile(sandbox.url, "fast");
    const t0 = performance.now();
    const res = await fetch(`${fast}/chat/completions`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "gpt-4o-mini", messages }),
    });
    const body = (await res.json()) as { usage: { completion_tokens: number } };
    const ms = performance.now() - t0;
    const expected = (F.chat?.ttftMs ?? 0) + (body.usage.completion_tokens / (F.chat?.tokensPerSecond ?? 1)) * 1000;
    expect(ms).toBeGreaterThan(expected * 0.6 - 5);
    expect(ms).toBeLessThan(expected * 2 + 150);
    expect(sandbox.requests.at(-1)?.profile).toBe("fast");
  });
});

describe("latency profiles: steady", () => {
  it("waits exactly the realistic medians: the same request takes the same time, first token plus its tokens", async () => {
    const steady = withLatencyProfile(sandbox.url, "steady");
    const timed = async () => {
      const t0 = performance.now();
      const res = await fetch(`${steady}/chat/completions`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({ model: "gpt-4o-mini", messages }),
      });
      const body = (await res.json()) as { usage: { completion_tokens: number } };
      return { ms: performance.now() - t0, tokens: body.usage.completion_tokens };
    };
    const runs = [await timed(), await timed(), await timed()];
    const { tokens } = runs[0] as { tokens: number };
    const expected = (R.chat?.ttftMs ?? 0) + (tokens / (R.chat?.tokensPerSecond ?? 1)) * 1000;
    for (const run of runs) {
      expect(run.tokens).toBe(tokens);
      expect(run.ms).toBeGreaterThanOrEqual(expected - 5);
      expect(run.ms).toBeLessThan(expected + 150);
    }
    expect(sandbox.requests.at(-1)?.profile).toBe("steady");
    expect(PROFILES.steady.sigma).toBe(0);
  });
});

describe("latency profiles: realistic chat", () => {
  it("streams SSE chunks: the first token after the time to first token, then at about the model's tokens per second, usage last", async () => {
    const client = new OpenAI({ baseURL: realistic, apiKey: sandbox.apiKey, maxRetries: 0 });
    const t0 = performance.now();
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const arrivals: number[] = [];
    let text = "";
    let usage: { completion_tokens: number } | null | undefined;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) {
        arrivals.push(performance.now() - t0);
        text += piece;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("You said: Hi, I would like to book an appointment on Tuesday morning please.");
    expect(usage?.completion_tokens).toBe(arrivals.length);
    const ttft = R.chat?.ttftMs ?? 0;
    const tps = R.chat?.tokensPerSecond ?? 1;
    expect(arrivals[0]).toBeGreaterThan(ttft * 0.6 - 5);
    expect(arrivals[0]).toBeLessThan(ttft * 2 + 200);
    // The tokens come spread out, not in one burst: n tokens take about n / tps.
    const span = (arrivals.at(-1) as number) - (arrivals[0] as number);
    const expected = ((arrivals.length - 1) / tps) * 1000;
    expect(span).toBeGreaterThan(expected * 0.5 - 5);
    expect(span).toBeLessThan(expected * 2 + 200);
  });

  it("a non-streamed completion comes whole after the time to first token plus its tokens", async () => {
    const t0 = performance.now();
    const res = await fetch(`${realistic}/chat/completions`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "gpt-4o-mini", messages }),
    });
    const body = (await res.json()) as { usage: { completion_tokens: number } };
    const tokens = body.usage.completion_tokens;
    const min = ((R.chat?.ttftMs ?? 0) + (tokens / (R.chat?.tokensPerSecond ?? 1)) * 1000) * 0.5;
    expect(performance.now() - t0).toBeGreaterThan(min);
  });

  it("notices a client that leaves mid-stream and stops writing", async () => {
    const ac = new AbortController();
    const res = await fetch(`${realistic}/chat/completions`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "gpt-4o-mini", messages, stream: true }),
      signal: ac.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the first event
    ac.abort();
    await new Promise((r) => setTimeout(r, 100));
    const entry = sandbox.requests.filter((r) => r.path === "/v1/chat/completions").at(-1);
    expect(entry?.aborted).toBe(true);
  });
});

describe("latency profiles: realistic speech and transcription", () => {
  it("OpenAI speech arrives chunked: the first byte after the time to first byte, the rest faster than real time", async () => {
    const t0 = performance.now();
    const res = await fetch(`${realistic}/audio/speech`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "tts-1", voice: "alloy", input: "Tuesday morning works for me, thank you.", response_format: "pcm" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBeNull(); // chunked, as OpenAI sends it
    const chunks = await timedChunks(res, t0);
    expect(chunks.length).toBeGreaterThan(3);
    const bytes = chunks.reduce((n, c) => n + c.bytes.length, 0);
    const audioMs = (bytes / 48_000) * 1000;
    const timing = R.speech?.openai ?? { ttfbMs: 0, rtf: 0 };
    expect(chunks[0]?.at).toBeGreaterThan(timing.ttfbMs * 0.6 - 5);
    const span = (chunks.at(-1)?.at as number) - (chunks[0]?.at as number);
    // Spread over about rtf × the audio's length: after the first byte, later than at once, sooner than real time.
    expect(span).toBeGreaterThan(timing.rtf * audioMs * 0.4);
    expect(span).toBeLessThan(audioMs);
  });

  it("ElevenLabs: the /stream variant is chunked over time; the whole-file endpoint answers once all of it is made", async () => {
    const el = withLatencyProfile(sandbox.elevenLabs.url, "realistic");
    const body = JSON.stringify({ text: "Tuesday morning works for me, thank you.", model_id: "eleven_flash_v2_5" });
    const h = { "xi-api-key": sandbox.elevenLabs.apiKey, "content-type": "application/json" };
    const t0 = performance.now();
    const streamed = await fetch(`${el}/v1/text-to-speech/pNInz6obpgDQGcFmaJgB/stream?output_format=pcm_16000`, {
      method: "POST",
      headers: h,
      body,
    });
    const chunks = await timedChunks(streamed, t0);
    const timing = R.speech?.elevenlabs ?? { ttfbMs: 0, rtf: 0 };
    expect(chunks[0]?.at).toBeGreaterThan(timing.ttfbMs * 0.6 - 5);
    expect((chunks.at(-1)?.at as number) - (chunks[0]?.at as number)).toBeGreaterThan(20);
    const t1 = performance.now();
    const whole = await fetch(`${el}/v1/text-to-speech/pNInz6obpgDQGcFmaJgB?output_format=pcm_16000`, { method: "POST", headers: h, body });
    const audio = new Uint8Array(await whole.arrayBuffer());
    const audioMs = (audio.length / 32_000) * 1000;
    expect(performance.now() - t1).toBeGreaterThan((timing.ttfbMs + timing.rtf * audioMs) * 0.6);
  });

  it("a transcription answers after the finalization delay", async () => {
    const speech = await fetch(`${sandbox.url}/audio/speech`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ model: "tts-1", voice: "alloy", input: "Hello there.", response_format: "wav" }),
    });
    const form = new FormData();
    form.set("file", new Blob([await speech.arrayBuffer()], { type: "audio/wav" }), "a.wav");
    form.set("model", "whisper-1");
    const t0 = performance.now();
    const res = await fetch(`${realistic}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
      body: form,
    });
    expect(((await res.json()) as { text: string }).text).toBe("Hello there.");
    expect(performance.now() - t0).toBeGreaterThan((R.transcription?.finalizeMs ?? 0) * 0.6);
    // The same request on the instant profile is far quicker.
    const t1 = performance.now();
    await fetch(`${sandbox.url}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
      body: form,
    });
    expect(performance.now() - t1).toBeLessThan((R.transcription?.finalizeMs ?? 0) * 0.6);
  });
});
