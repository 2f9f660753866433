// The provider sandbox must speak the OpenAI API well enough that the official `openai` SDK
// runs against it unchanged: chat (deterministic replies, tokens, JSON, tools, streaming),
// real speech audio, transcription that round-trips the sandbox's own audio, and the fault
// models the provider adapter's failure tests use.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import OpenAI, {
  APIConnectionTimeoutError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  toFile,
} from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";

let sandbox: ProviderSandbox;
let client: OpenAI;

beforeAll(async () => {
  sandbox = await startProviderSandbox();
  client = new OpenAI({ baseURL: sandbox.url, apiKey: sandbox.apiKey, maxRetries: 0 });
});
afterAll(() => sandbox.stop());

// ---------------------------------------------------------------------------------------------
// A WAV reader written independently of the sandbox's own, so the test checks the bytes.

interface Riff {
  channels: number;
  sampleRate: number;
  bits: number;
  samples: Int16Array;
  seconds: number;
  chunks: string[];
}

function readRiff(buf: Buffer): Riff {
  expect(buf.toString("latin1", 0, 4)).toBe("RIFF");
  expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
  expect(buf.toString("latin1", 8, 12)).toBe("WAVE");
  const chunks: string[] = [];
  let fmt: { channels: number; sampleRate: number; bits: number } | undefined;
  let data: Buffer | undefined;
  for (let p = 12; p + 8 <= buf.length; ) {
    const id = buf.toString("latin1", p, p + 4);
    const size = buf.readUInt32LE(p + 4);
    chunks.push(id);
    if (id === "fmt ") {
      expect(buf.readUInt16LE(p + 8)).toBe(1); // PCM
      fmt = { channels: buf.readUInt16LE(p + 10), sampleRate: buf.readUInt32LE(p + 12), bits: buf.readUInt16LE(p + 22) };
    }
    if (id === "data") data = buf.subarray(p + 8, p + 8 + size);
    p += 8 + size + (size & 1);
  }
  if (!fmt || !data) throw new Error("no fmt or data chunk");
  const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
  return { ...fmt, samples, seconds: samples.length / fmt.channels / fmt.sampleRate, chunks };
}

const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, v) => a + v * v, 0) / Math.max(1, s.length));

/** A WAV made here, with no metadata: a 440 Hz tone. */
function toneWav(seconds: number, sampleRate: number, channels: 1 | 2, bits: 8 | 16): Buffer {
  const frames = Math.round(seconds * sampleRate);
  const bytes = bits / 8;
  const data = Buffer.alloc(frames * channels * bytes);
  for (let i = 0; i < frames; i++) {
    const v = Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 0.5;
    for (let c = 0; c < channels; c++) {
      const at = (i * channels + c) * bytes;
      if (bits === 16) data.writeInt16LE(Math.round(v * 32767), at);
      else data.writeUInt8(Math.round(128 + v * 127), at);
    }
  }
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "latin1");
  h.writeUInt32LE(36 + data.length, 4);
  h.write("WAVEfmt ", 8, "latin1");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * bytes, 28);
  h.writeUInt16LE(channels * bytes, 32);
  h.writeUInt16LE(bits, 34);
  h.write("data", 36, "latin1");
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

const raw = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

// ---------------------------------------------------------------------------------------------

describe("provider sandbox: auth and models", () => {
  it("refuses a missing or wrong key with 401 in OpenAI's error shape", async () => {
    const res = await fetch(`${sandbox.url}/models`);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toEqual({ message: expect.any(String), type: "invalid_request_error", param: null, code: "invalid_api_key" });

    const wrong = new OpenAI({ baseURL: sandbox.url, apiKey: "sk-wrong", maxRetries: 0 });
    const err = await wrong.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.code).toBe("invalid_api_key");
    expect(JSON.stringify(err.error)).not.toContain("sk-wrong");
  });

  it("lists models and serves any id except missing-*", async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(["sandbox-chat", "gpt-4o-mini", "tts-1", "whisper-1"]));
    expect((await client.models.retrieve("anything-at-all")).id).toBe("anything-at-all");
    const err = await client.chat.completions
      .create({ model: "missing-model", messages: [{ role: "user", content: "hi" }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.code).toBe("model_not_found");
  });
});

describe("provider sandbox: chat completions", () => {
  it("echoes the last user message in OpenAI's response shape, with counted tokens", async () => {
    const res = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello there, sandbox!" },
      ],
      temperature: 0.7,
    });
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.object).toBe("chat.completion");
    expect(res.model).toBe("gpt-4o-mini");
    expect(typeof res.created).toBe("number");
    expect(res.choices).toHaveLength(1);
    expect(res.choices[0]).toMatchObject({
      index: 0,
      finish_reason: "stop",
      message: { role: "assistant", content: "You said: Hello there, sandbox!" },
    });
    // tokens: runs of letters/digits/_ and single punctuation marks.
    // prompt: system(1) Be brief .(3) user(1) Hello there , sandbox !(5) = 10; completion: You said : Hello there , sandbox ! = 8
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 });
  });

  it("is deterministic: the same request gets the same choices and usage", async () => {
    const req = { model: "sandbox-chat", messages: [{ role: "user" as const, content: "Tell me about the weather in Lisbon" }] };
    const [a, b] = await Promise.all([client.chat.completions.create(req), client.chat.completions.create(req)]);
    expect(a.choices).toEqual(b.choices);
    expect(a.usage).toEqual(b.usage);
    expect(a.id).not.toBe(b.id);
  });

  it("truncates at max_tokens (and max_completion_tokens) with finish_reason length", async () => {
    const messages = [{ role: "user" as const, content: "one two three four five six" }];
    const a = await client.chat.completions.create({ model: "m", messages, max_tokens: 4 });
    expect(a.choices[0]?.message.content).toBe("You said: one");
    expect(a.choices[0]?.finish_reason).toBe("length");
    expect(a.usage?.completion_tokens).toBe(4);
    const b = await client.chat.completions.create({ model: "m", messages, max_completion_tokens: 4 });
    expect(b.choices[0]?.message.content).toBe("You said: one");
    const c = await client.chat.completions.create({ model: "m", messages, max_tokens: 100 });
    expect(c.choices[0]?.finish_reason).toBe("stop");
  });

  it("says Goodbye when the caller says bye", async () => {
    const res = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "You said: hi." },
        { role: "user", content: "Thanks, bye!" },
      ],
    });
    expect(res.choices[0]?.message.content).toContain("Goodbye");
  });

  it("answers valid JSON in json_object mode, and schema-shaped JSON in json_schema mode", async () => {
    const obj = await client.chat.completions.create({
      model: "m",
      messages: [
        { role: "system", content: "Answer in JSON." },
        { role: "user", content: "What is two plus two?" },
      ],
      response_format: { type: "json_object" },
    });
    expect(JSON.parse(obj.choices[0]?.message.content ?? "")).toEqual({ reply: "You said: What is two plus two?" });

    const noJsonWord = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "hi" }], response_format: { type: "json_object" } })
      .catch((e) => e);
    expect(noJsonWord).toBeInstanceOf(BadRequestError);

    const schema = {
      type: "object",
      properties: {
        summary: { type: "string", maxLength: 12 },
        score: { type: "integer", minimum: 1, maximum: 5 },
        ok: { type: "boolean" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        when: { type: "string", format: "date-time" },
        owner: { $ref: "#/$defs/person" },
        note: { type: ["string", "null"] },
      },
      required: ["summary", "score", "ok", "tags", "when", "owner"],
      additionalProperties: false,
      $defs: { person: { type: "object", properties: { name: { type: "string" }, age: { type: "number" } }, required: ["name", "age"] } },
    };
    const res = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "rate this nice little test" }],
      response_format: { type: "json_schema", json_schema: { name: "rating", schema, strict: true } },
    });
    const out = JSON.parse(res.choices[0]?.message.content ?? "");
    expect(out).toEqual({
      summary: "You said: ra",
      score: 5, // 5 words, within 1..5
      ok: true,
      tags: ["a"],
      when: "1970-01-01T00:00:00Z",
      owner: { name: "You said: rate this nice little test.", age: 5 },
    });
  });

  it("calls a tool the user names, with schema-derived arguments, then reads its result", async () => {
    const tools = [
      {
        type: "function" as const,
        function: { name: "lookup_order", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
      },
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { days: { type: "integer", maximum: 3 } }, required: ["days"] },
        },
      },
    ];
    const first = await client.chat.completions.create({
      model: "m",
      tools,
      messages: [{ role: "user", content: "Please get weather for Paris" }],
    });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    const call = choice?.message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ days: 3 });
    expect(call.id).toMatch(/^call_/);

    const second = await client.chat.completions.create({
      model: "m",
      tools,
      messages: [
        { role: "user", content: "Please get weather for Paris" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "Sunny, 24 C" },
      ],
    });
    expect(second.choices[0]?.finish_reason).toBe("stop");
    expect(second.choices[0]?.message.content).toBe("The tool get_weather returned: Sunny, 24 C.");

    const none = await client.chat.completions.create({ model: "m", tools, messages: [{ role: "user", content: "Nothing to do" }] });
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
    const forced = await client.chat.completions.create({
      model: "m",
      tools,
      tool_choice: { type: "function", function: { name: "lookup_order" } },
      messages: [{ role: "user", content: "Nothing to do" }],
    });
    const fc = forced.choices[0]?.message.tool_calls?.[0];
    expect(fc?.type === "function" && fc.function.name).toBe("lookup_order");
  });

  it("streams OpenAI chunks ending with [DONE] that add up to the non-streamed reply", async () => {
    const messages = [{ role: "user" as const, content: "Stream me, please." }];
    const whole = await client.chat.completions.create({ model: "m", messages });
    const stream = await client.chat.completions.create({ model: "m", messages, stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(whole.choices[0]?.message.content);
    expect(finish).toBe("stop");
    expect(usage).toEqual(whole.usage);

    const res = await raw("/chat/completions", { model: "m", messages, stream: true });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect((await res.text()).endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("refuses malformed requests with 400", async () => {
    const bad = await fetch(`${sandbox.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandbox.apiKey}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const role = await raw("/chat/completions", { model: "m", messages: [{ role: "robot", content: "x" }] });
    expect(role.status).toBe(400);
    expect(((await role.json()) as { error: { param: string } }).error.param).toBe("messages[0].role");
  });
});

describe("provider sandbox: speech and transcription", () => {
  const sentence = "Hello from the provider sandbox. This is real speech.";
  let wav: Buffer;
  let speechMs = 0;

  beforeAll(async () => {
    const started = Date.now();
    wav = Buffer.from(
      await (await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: sentence, response_format: "wav" })).arrayBuffer(),
    );
    speechMs = Date.now() - started;
  });

  it("speaks real audio as a 16-bit mono WAV", async () => {
    const r = readRiff(wav);
    expect(r).toMatchObject({ channels: 1, sampleRate: 22050, bits: 16 });
    expect(r.seconds).toBeGreaterThan(0.3);
    expect(r.chunks).toEqual(["fmt ", "data", "LIST"]); // the transcript rides after the samples
    expect(rms(r.samples)).toBeGreaterThan(500); // not silence
    expect(speechMs).toBeLessThan(10_000);
  });

  it("is deterministic per input, and voices differ", async () => {
    const again = Buffer.from(
      await (await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: sentence, response_format: "wav" })).arrayBuffer(),
    );
    expect(again.equals(wav)).toBe(true);
    const nova = Buffer.from(
      await (await client.audio.speech.create({ model: "tts-1", voice: "nova", input: sentence, response_format: "wav" })).arrayBuffer(),
    );
    expect(nova.equals(wav)).toBe(false);
    expect(readRiff(nova).seconds).toBeGreaterThan(0.3);
  });

  it("speaks pcm (24 kHz 16-bit, no header) and applies speed", async () => {
    const res = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: sentence, response_format: "pcm", speed: 2 });
    expect(res.headers.get("content-type")).toBe("audio/pcm");
    const pcm = Buffer.from(await res.arrayBuffer());
    expect(pcm.toString("latin1", 0, 4)).not.toBe("RIFF");
    expect(pcm.length % 2).toBe(0);
    const seconds = pcm.length / 2 / 24_000;
    const normal = readRiff(wav).seconds;
    expect(seconds).toBeGreaterThan(normal * 0.4);
    expect(seconds).toBeLessThan(normal * 0.6);
    // below eSpeak's slowest rate the word gaps widen: 0.25 is still about 4x longer
    const slow = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: sentence, response_format: "pcm", speed: 0.25 });
    const slowSeconds = (await slow.arrayBuffer()).byteLength / 2 / 24_000;
    expect(slowSeconds / normal).toBeGreaterThan(3.3);
    expect(slowSeconds / normal).toBeLessThan(4.7);
  });

  it("refuses mp3, an unknown voice and over-long input with 400", async () => {
    const mp3 = await client.audio.speech.create({ model: "tts-1", voice: "alloy", input: "hi", response_format: "mp3" }).catch((e) => e);
    expect(mp3).toBeInstanceOf(BadRequestError);
    expect(mp3.message).toMatch(/wav/);
    expect(mp3.message).toMatch(/pcm/);
    const voice = await client.audio.speech.create({ model: "tts-1", voice: "robot", input: "hi", response_format: "wav" }).catch((e) => e);
    expect(voice).toBeInstanceOf(BadRequestError);
    expect(voice.param).toBe("voice");
    const long = await client.audio.speech
      .create({ model: "tts-1", voice: "alloy", input: "a".repeat(4097), response_format: "wav" })
      .catch((e) => e);
    expect(long).toBeInstanceOf(BadRequestError);
    expect(long.code).toBe("string_above_max_length");
  });

  it("transcribes its own WAV back to the input text", async () => {
    const t = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(wav, "speech.wav", { type: "audio/wav" }),
    });
    expect(t.text).toBe(sentence);
    const v = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(wav, "speech.wav", { type: "audio/wav" }),
      response_format: "verbose_json",
    });
    expect(v.text).toBe(sentence);
    expect(v.duration).toBeCloseTo(readRiff(wav).seconds, 3);
    expect(v.segments?.map((s) => s.text)).toEqual(["Hello from the provider sandbox.", "This is real speech."]);
    expect(v.segments?.at(-1)?.end).toBeCloseTo(v.duration, 2);
    const text = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(wav, "a.wav"),
      response_format: "text",
    });
    expect(text).toBe(sentence);
  });

  it("measures other WAVs and returns no words for them", async () => {
    const tone = toneWav(1.25, 16_000, 2, 8);
    const v = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(tone, "tone.wav"),
      response_format: "verbose_json",
    });
    expect(v.text).toBe("");
    expect(v.duration).toBeCloseTo(1.25, 5);
    expect(v.segments).toEqual([]);
    expect((v as unknown as { sandbox: { recognized: boolean; note: string } }).sandbox).toMatchObject({
      recognized: false,
      note: expect.stringMatching(/only audio it produced itself/),
    });
    const j = await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(toneWav(2, 44_100, 1, 16), "tone.wav") });
    expect(j.text).toBe("");
    expect(j.usage).toEqual({ type: "duration", seconds: 2 });
  });

  it("refuses non-WAV and corrupt files with 400", async () => {
    for (const bytes of [Buffer.from("ID3 this is not a wav file at all"), toneWav(1, 8000, 1, 16).subarray(0, 30), Buffer.alloc(0)]) {
      const err = await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(bytes, "x.wav") }).catch((e) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.error).toMatchObject({ type: "invalid_request_error" });
    }
    const truncated = toneWav(1, 8000, 1, 16).subarray(0, 2000); // data chunk runs past the end
    const err = await client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(truncated, "x.wav") }).catch((e) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.message).toMatch(/truncated/);
  });
});

describe("provider sandbox: fault models", () => {
  const ask = (model: string, c: OpenAI = client) => c.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });

  it("fault-500 answers 500 on every endpoint", async () => {
    expect(await ask("fault-500").catch((e) => e)).toBeInstanceOf(InternalServerError);
    const speech = await client.audio.speech
      .create({ model: "fault-500", voice: "alloy", input: "hi", response_format: "wav" })
      .catch((e) => e);
    expect(speech).toBeInstanceOf(InternalServerError);
    const stt = await client.audio.transcriptions
      .create({ model: "fault-500", file: await toFile(toneWav(1, 8000, 1, 16), "t.wav") })
      .catch((e) => e);
    expect(stt).toBeInstanceOf(InternalServerError);
  });

  it("fault-429 answers 429 with retry-after: 1", async () => {
    const err = await ask("fault-429").catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.code).toBe("rate_limit_exceeded");
    expect(err.headers.get("retry-after")).toBe("1");
  });

  it("fault-timeout never answers; the client times out", async () => {
    const impatient = new OpenAI({ baseURL: sandbox.url, apiKey: sandbox.apiKey, maxRetries: 0, timeout: 300 });
    const started = Date.now();
    expect(await ask("fault-timeout", impatient).catch((e) => e)).toBeInstanceOf(APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(sandbox.requests.filter((r) => r.model === "fault-timeout").every((r) => r.status === undefined)).toBe(true);
  });

  it("fault-garbage answers 200 with a body that is not JSON", async () => {
    const res = await raw("/chat/completions", { model: "fault-garbage", messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    await expect(ask("fault-garbage")).rejects.toThrow();
  });

  it("fault-flaky-N fails the first N sightings of a request body, then succeeds", async () => {
    const body = { model: "fault-flaky-2", messages: [{ role: "user", content: `flaky ${Math.random()}` }] };
    expect((await raw("/chat/completions", body)).status).toBe(500);
    expect((await raw("/chat/completions", body)).status).toBe(500);
    expect((await raw("/chat/completions", body)).status).toBe(200);
    expect((await raw("/chat/completions", body)).status).toBe(200);
    // another body has its own count
    expect((await raw("/chat/completions", { ...body, temperature: 0 })).status).toBe(500);

    // the SDK's own retries get through (multipart too: its boundary changes, the fingerprint does not)
    const retrying = new OpenAI({ baseURL: sandbox.url, apiKey: sandbox.apiKey, maxRetries: 1 });
    const stt = await retrying.audio.transcriptions.create({ model: "fault-flaky-1", file: await toFile(wav2(), "t.wav") });
    expect(stt.text).toBe("");
  });

  it("stop() releases held sockets", async () => {
    const own = await startProviderSandbox();
    const pending = fetch(`${own.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${own.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fault-timeout", messages: [{ role: "user", content: "hi" }] }),
    }).catch((e: unknown) => e);
    while (own.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await own.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
  });
});

/** A 1 s tone with a per-run marker sample, so the flaky counter starts fresh. */
function wav2(): Buffer {
  const w = toneWav(1, 8000, 1, 16);
  w.writeInt16LE(Math.floor(Math.random() * 30000), 44);
  return w;
}

describe("provider sandbox: CLI", () => {
  it("starts on PORT and prints the base URL and key", async () => {
    const tsx = fileURLToPath(new URL("../../../node_modules/tsx/dist/cli.mjs", import.meta.url));
    const script = fileURLToPath(new URL("../../../dev/sandbox/openai.ts", import.meta.url));
    const child = spawn(process.execPath, [tsx, script], {
      env: { ...process.env, PORT: "0", SANDBOX_API_KEY: "sk-cli-test" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no base URL printed:\n${out}`)), 10_000);
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /base URL: (\S+)/.exec(out);
          if (m?.[1] && out.includes("API key:")) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(out).toContain("sk-cli-test");
      const res = await fetch(`${url}/models`, { headers: { authorization: "Bearer sk-cli-test" } });
      expect(res.status).toBe(200);
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
