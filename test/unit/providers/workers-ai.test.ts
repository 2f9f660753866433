// Deepgram's models through the Workers AI binding: the Deepgram adapter with `workersAiConnect`.
// The binding has no local simulation, so a fake `env.AI` plays Cloudflare's part: it records what
// `run(model, inputs, { websocket: true })` was given and answers 101 with a socket to the provider
// sandbox's Deepgram API (Workers AI relays Deepgram's own stream), so a real Flux stream runs end
// to end through the connector. Also: refusals as ProviderErrors, the registry's choice, the config.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VAD_RMS } from "../../../dev/sandbox/deepgram";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { resample16 } from "../../../dev/sandbox/wav";
import { callPorts } from "../../../src/calls/pipeline/providers";
import type { Agent, Call } from "../../../src/db/schema";
import type { Scope } from "../../../src/db/scope";
import { envSchema } from "../../../src/env";
import { Deepgram } from "../../../src/providers/deepgram";
import { ProviderError } from "../../../src/providers/http";
import { providersOf, streamingSttProvider, streamingSttRequirement } from "../../../src/providers/registry";
import type { SttStreamEvent, SttStreamOptions } from "../../../src/providers/types";
import { type WorkersAi, workersAiConnect, workersAiRequest } from "../../../src/providers/workers-ai";
import { nodeConnect } from "../../support/ws-connect";

let sandbox: ProviderSandbox;

beforeAll(async () => {
  sandbox = await startProviderSandbox({ latency: "instant" });
});
afterAll(() => sandbox.stop());

const SENTENCE = "Hi, I would like to book an appointment.";

const base = { DATABASE_URL: "postgres://u@h/db", UPSTASH_REDIS_REST_URL: "https://r.example", UPSTASH_REDIS_REST_TOKEN: "t" };
const kek = `k1:${btoa(String.fromCharCode(...new Uint8Array(32)))}`;
const config = (env: Record<string, string> = {}) => envSchema.parse({ ...base, SECRETS_KEK: kek, PROVIDER_TIMEOUT_MS: "5000", ...env });

interface Run {
  model: string;
  inputs: Record<string, string>;
  options: { websocket: true; signal?: AbortSignal };
}

/** A fake `env.AI`: records each run, and answers as `answer` says (by default: Deepgram's stream, from the sandbox). */
function fakeAi(answer?: (run: Run) => Promise<Response>) {
  const runs: Run[] = [];
  let accepted = 0;
  const ai: WorkersAi = {
    async run(model, inputs, options) {
      const run = { model, inputs, options };
      runs.push(run);
      if (answer) return answer(run);
      // Cloudflare's side: the same stream from Deepgram's API (the sandbox's), with the account's credential.
      const [path, name] = model === "@cf/deepgram/flux" ? ["/v2/listen", "flux-general-en"] : ["/v1/listen", "nova-3"];
      const query = new URLSearchParams({ model: name, ...inputs });
      const signal = options.signal ?? AbortSignal.timeout(5_000);
      const up = await nodeConnect(
        `${sandbox.deepgram.url}${path}?${query}`,
        { Authorization: `Token ${sandbox.deepgram.apiKey}` },
        signal,
      );
      if (!("socket" in up)) return new Response(up.body, { status: up.status });
      const webSocket = Object.assign(up.socket, { accept: () => void accepted++ });
      // Node's Response cannot have status 101: the binding's answer, as far as the connector reads it.
      return { status: 101, webSocket } as unknown as Response;
    },
  };
  return { ai, runs, accepted: () => accepted };
}

/** The sandbox's speech of `text` at `rate` (so its Deepgram recognizes it), without eSpeak's silence around it. */
async function speak(text: string, rate: number): Promise<Int16Array> {
  const res = await fetch(`${sandbox.url}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice: "nova", input: text, response_format: "pcm" }),
  });
  expect(res.status).toBe(200);
  const pcm = resample16(Buffer.from(await res.arrayBuffer()), 24_000, rate);
  const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const frame = rate / 50;
  const loud = (at: number) => Math.sqrt(samples.subarray(at, at + frame).reduce((s, v) => s + v * v, 0) / frame) >= VAD_RMS;
  let end = samples.length;
  while (end > frame && !loud(end - frame)) end -= frame;
  let start = 0;
  while (start + frame < end && !loud(start)) start += frame;
  return samples.slice(start, end);
}

/** Opens a stream recording its events; `until` resolves at the first event that matches. */
async function open(provider: { open: Deepgram["open"] }, opts: SttStreamOptions) {
  const events: SttStreamEvent[] = [];
  const waiters: Array<{ match: (e: SttStreamEvent) => boolean; resolve: (e: SttStreamEvent) => void }> = [];
  const stream = await provider.open(opts, (e) => {
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
  /** Sends audio in 20 ms frames, as a call does (only faster); returns the samples sent. */
  const play = (...parts: Int16Array[]) => {
    let n = 0;
    const frame = opts.sampleRate / 50;
    for (const part of parts) {
      for (let at = 0; at < part.length; at += frame) stream.send(part.subarray(at, at + frame));
      n += part.length;
    }
    return n;
  };
  return { stream, events, until, play };
}

describe("workersAiConnect: Deepgram's models through the Workers AI binding", () => {
  it("runs a Flux stream end to end: @cf/deepgram/flux with the adapter's query as string inputs, the socket accepted, turn events out", async () => {
    const rate = 8_000;
    const speech = await speak(SENTENCE, rate);
    const fake = fakeAi();
    // Through the registry: STREAMING_STT_PROVIDER=workers-ai needs no Deepgram key, only the binding.
    const provider = streamingSttProvider(config({ STREAMING_STT_PROVIDER: "workers-ai" }), fake.ai);
    expect(provider?.name).toBe("deepgram");
    const { stream, events, until, play } = await open(provider as Deepgram, {
      model: "flux-general-en",
      sampleRate: rate,
      encoding: "linear16",
      eotThreshold: 0.7,
      eagerEotThreshold: 0.5,
      eotTimeoutMs: 3000,
    });
    expect(fake.runs).toEqual([
      {
        model: "@cf/deepgram/flux",
        inputs: { encoding: "linear16", sample_rate: "8000", eot_threshold: "0.7", eager_eot_threshold: "0.5", eot_timeout_ms: "3000" },
        options: { websocket: true, signal: expect.any(AbortSignal) },
      },
    ]);
    expect(fake.accepted()).toBe(1);

    const sent = play(speech, new Int16Array((rate * 600) / 1000));
    const end = await until((e) => e.type === "end-of-turn");
    expect(end).toMatchObject({ type: "end-of-turn", text: SENTENCE });
    expect(events.filter((e) => e.type !== "update").map((e) => e.type)).toEqual(["start-of-turn", "eager-end-of-turn", "end-of-turn"]);
    expect(await stream.close()).toBeCloseTo(sent / rate, 2);
    expect(stream.closed).toBe(true);
    expect(events.some((e) => e.type === "error")).toBe(false);
    expect(sandbox.requests.filter((r) => r.path === "/v2/listen").at(-1)).toMatchObject({ status: 101, model: "flux-general-en" });
  });

  it("maps Nova to @cf/deepgram/nova-3 with its own inputs (interim results, endpointing, language), and the stream gives finals", async () => {
    const rate = 16_000;
    const speech = await speak(SENTENCE, rate);
    const fake = fakeAi();
    const nova = new Deepgram("https://api.deepgram.com", "", { connect: workersAiConnect(fake.ai), timeoutMs: 5_000, keepAliveMs: 0 });
    const opts = {
      model: "nova-3",
      sampleRate: rate,
      encoding: "linear16" as const,
      language: "en",
      endpointingMs: 300,
      utteranceEndMs: 1000,
    };
    const { stream, until, play } = await open(nova, opts);
    expect(fake.runs[0]).toMatchObject({
      model: "@cf/deepgram/nova-3",
      inputs: {
        encoding: "linear16",
        sample_rate: "16000",
        channels: "1",
        interim_results: "true",
        punctuate: "true",
        language: "en",
        endpointing: "300",
        utterance_end_ms: "1000",
      },
    });
    expect(fake.runs[0]?.inputs).not.toHaveProperty("model");
    play(speech, new Int16Array((rate * 1200) / 1000));
    expect(await until((e) => e.type === "final")).toEqual({ type: "final", text: SENTENCE, speechFinal: true });
    await stream.close();
  });

  it("turns refusals into ProviderErrors: a throw (its message, keys removed), a non-101 answer, a model Workers AI does not serve, a binding that never answers", async () => {
    const adapter = (ai: WorkersAi, timeoutMs = 5_000) =>
      new Deepgram("https://api.deepgram.com", "", { connect: workersAiConnect(ai), timeoutMs, keepAliveMs: 0 });
    const flux = { model: "flux-general-en", sampleRate: 16_000, encoding: "linear16" as const };
    const fail = (ai: WorkersAi, opts: SttStreamOptions = flux, timeoutMs?: number) =>
      adapter(ai, timeoutMs)
        .open(opts, () => {})
        .then(
          () => null,
          (e: unknown) => e,
        );

    const thrown = await fail(
      fakeAi(async () => {
        throw new Error("3040: Capacity temporarily exceeded, key sk-0123456789abcdef");
      }).ai,
    );
    expect(thrown).toBeInstanceOf(ProviderError);
    expect(thrown).toMatchObject({ failure: "upstream", message: expect.stringContaining("3040: Capacity temporarily exceeded") });
    expect((thrown as Error).message).toContain("@cf/deepgram/flux");
    expect((thrown as Error).message).not.toContain("sk-0123456789abcdef");

    // Thrown at once, not as a rejection: the same.
    const sync: WorkersAi = {
      run: () => {
        throw new Error("5006: Invalid input");
      },
    };
    expect(await fail(sync)).toMatchObject({ failure: "upstream", message: expect.stringContaining("5006: Invalid input") });

    const limited = await fail(fakeAi(async () => new Response("too many requests", { status: 429, headers: { "retry-after": "2" } })).ai);
    expect(limited).toMatchObject({ failure: "rate_limited", status: 429, retryAfterSeconds: 2 });
    const refused = await fail(fakeAi(async () => new Response(JSON.stringify({ errors: [{ message: "bad" }] }), { status: 400 })).ai);
    expect(refused).toMatchObject({ failure: "rejected", status: 400 });
    // A 200 without a socket is no upgrade either.
    expect(await fail(fakeAi(async () => new Response("{}", { status: 200 })).ai)).toBeInstanceOf(ProviderError);

    const unserved = fakeAi();
    expect(await fail(unserved.ai, { ...flux, model: "flux-general-multi" })).toMatchObject({
      failure: "rejected",
      message: expect.stringContaining("flux-general-en and nova-3"),
    });
    expect(unserved.runs).toEqual([]);

    // A binding that ignores the signal and never answers: the adapter's timeout still ends the wait.
    expect(await fail(fakeAi(() => new Promise<Response>(() => {})).ai, flux, 150)).toMatchObject({ failure: "timeout" });
  });

  it("closes a socket that arrives after the caller gave up (cancelled), and reports the cancel", async () => {
    let closed = 0;
    let answer: (r: Response) => void = () => {};
    const late = fakeAi(() => new Promise<Response>((resolve) => (answer = resolve)));
    const ctl = new AbortController();
    const opening = new Deepgram("https://api.deepgram.com", "", { connect: workersAiConnect(late.ai), timeoutMs: 5_000 })
      .open({ model: "flux-general-en", sampleRate: 16_000, encoding: "linear16", signal: ctl.signal }, () => {})
      .catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 10));
    ctl.abort();
    expect(await opening).toMatchObject({ failure: "canceled" });
    expect(late.runs[0]?.options.signal?.aborted).toBe(true);
    answer({ status: 101, webSocket: { accept: () => {}, close: () => void closed++ } } as unknown as Response);
    await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(1);
  });

  it("maps the listen URL's path and model, and passes every other parameter once", () => {
    expect(workersAiRequest("https://api.deepgram.com/v2/listen?model=flux-general-en&encoding=linear16&sample_rate=16000")).toEqual({
      model: "@cf/deepgram/flux",
      inputs: { encoding: "linear16", sample_rate: "16000" },
    });
    expect(workersAiRequest("http://127.0.0.1:1/prefix/v1/listen?model=nova-3&encoding=linear16").model).toBe("@cf/deepgram/nova-3");
    // A model on the other API's path is not what Workers AI serves there.
    expect(() => workersAiRequest("https://api.deepgram.com/v1/listen?model=flux-general-en")).toThrow(ProviderError);
    expect(() => workersAiRequest("https://api.deepgram.com/v1/listen?model=nova-3&keyterm=a&keyterm=b")).toThrow(/keyterm repeats/);
  });
});

describe("the streaming provider's configuration", () => {
  const ai = fakeAi().ai;

  it("STREAMING_STT_PROVIDER picks the connector: deepgram needs DEEPGRAM_API_KEY, workers-ai the binding (and no key)", () => {
    expect(config().STREAMING_STT_PROVIDER).toBe("deepgram");
    expect(streamingSttProvider(config(), ai)).toBeNull(); // the binding alone does not switch
    expect(streamingSttProvider(config({ DEEPGRAM_API_KEY: "dg" }))?.name).toBe("deepgram");
    const workersAi = config({ STREAMING_STT_PROVIDER: "workers-ai", DEEPGRAM_API_KEY: "dg" });
    expect(streamingSttProvider(workersAi)).toBeNull(); // no binding: no streaming, whatever the key
    expect(streamingSttProvider(workersAi, ai)?.name).toBe("deepgram");
    expect(streamingSttRequirement(config())).toBe("DEEPGRAM_API_KEY");
    expect(streamingSttRequirement(workersAi)).toMatch(/Workers AI binding.*\[ai\] binding = "AI"/);
  });

  it("refuses a STREAMING_STT_MODEL that Workers AI does not serve, with workers-ai only", () => {
    const parsed = envSchema.safeParse({
      ...base,
      SECRETS_KEK: kek,
      STREAMING_STT_PROVIDER: "workers-ai",
      STREAMING_STT_MODEL: "flux-general-multi",
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path[0])).toEqual(["STREAMING_STT_MODEL"]);
    expect(config({ STREAMING_STT_PROVIDER: "workers-ai", STREAMING_STT_MODEL: "nova-3" }).STREAMING_STT_MODEL).toBe("nova-3");
    expect(config({ STREAMING_STT_MODEL: "flux-general-multi" }).STREAMING_STT_MODEL).toBe("flux-general-multi");
  });

  it("CALL_TRANSCRIPTION=streaming with workers-ai and no binding fails the call's ports with a clear message; with it, the ports stream", () => {
    const ports = (env: Record<string, string>, binding?: WorkersAi) => {
      const c = config({ OPENAI_API_KEY: "o", CALL_TRANSCRIPTION: "streaming", STREAMING_STT_PROVIDER: "workers-ai", ...env });
      return callPorts({
        scope: {} as Scope,
        config: c,
        providers: providersOf(c),
        call: { id: "call_1", organizationId: "org_1" } as Call,
        agent: {} as Agent,
        voice: null,
        sampleRate: 8000,
        transferable: false,
        ...(binding && { ai: binding }),
      });
    };
    expect(() => ports({})).toThrow(
      'CALL_TRANSCRIPTION=streaming needs a streaming provider (the Workers AI binding for STREAMING_STT_PROVIDER=workers-ai: [ai] binding = "AI" in wrangler.toml)',
    );
    expect(ports({}, ai).stream).not.toBeNull();
    expect(ports({ CALL_TRANSCRIPTION: "auto" }).stream).toBeNull(); // auto: batch transcription without it
  });
});
