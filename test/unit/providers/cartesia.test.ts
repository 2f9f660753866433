// The Cartesia adapter against the provider sandbox's Cartesia API (the same server the stack uses),
// in process: the bytes endpoint, the WebSocket (one context per utterance, text pushed as it comes
// and its audio in order), a cancel through the signal, a refused key and Cartesia's `error`
// message. The socket is opened with the `ws` package (test/support/ws-connect.ts); in the worker it is
// Workers' fetch upgrade. Nothing here waits on the clock: each step waits for the event before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { envelopeSimilarity, loudnessEnvelope, MATCH_THRESHOLD } from "../../../dev/sandbox/recognize";
import { parseWav } from "../../../src/lib/audio";
import { CARTESIA_DEFAULT_MODEL, CARTESIA_VERSION, Cartesia } from "../../../src/providers/cartesia";
import { ProviderError } from "../../../src/providers/http";
import type { SpeechRequest } from "../../../src/providers/types";
import { nodeConnect } from "../../support/ws-connect";

let sandbox: ProviderSandbox;
let cartesia: Cartesia;

const CALL = { timeoutMs: 10_000, retries: 1, backoffMs: 10 };
const KATIE = "f786b574-daa5-4673-aa0c-cbe3e8534c02";
const speech = (text: string, over: Partial<SpeechRequest> = {}): SpeechRequest => ({
  text,
  voice: KATIE,
  model: CARTESIA_DEFAULT_MODEL,
  format: "pcm",
  ...over,
});

beforeAll(async () => {
  sandbox = await startProviderSandbox();
  cartesia = new Cartesia(sandbox.cartesia.url, sandbox.cartesia.apiKey, CALL, nodeConnect);
});
afterAll(() => sandbox.stop());

const bytesOf = async (text: string) => new Uint8Array(await cartesia.synthesize(speech(text)));
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
/**
 * Whether `audio` is the speech of `expected` in order: the same length (eSpeak's timing is
 * fixed), and each part's loudness envelope that of the same text spoken alone (the samples
 * themselves differ between two renditions, as a real voice's would).
 */
function sameSpeech(audio: Uint8Array, expected: Uint8Array[]) {
  expect(audio.length).toBe(expected.reduce((n, e) => n + e.length, 0));
  const envelope = (b: Uint8Array) => loudnessEnvelope(new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), 24_000);
  let at = 0;
  for (const [i, e] of expected.entries()) {
    const part = audio.subarray(at, at + e.length);
    at += e.length;
    expect(envelopeSimilarity(envelope(part), envelope(e)), `part ${i}`).toBeGreaterThan(MATCH_THRESHOLD);
  }
}
async function failure(work: () => Promise<unknown>): Promise<ProviderError> {
  try {
    await work();
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error("it did not fail");
}

describe("Cartesia: the bytes endpoint", () => {
  it("speaks raw PCM at 24 kHz, and WAV wrapped around it", async () => {
    const pcm = await bytesOf("Hello from Katie.");
    expect(pcm.length).toBeGreaterThan(24_000); // more than half a second of 16-bit audio
    const wav = parseWav(new Uint8Array(await cartesia.synthesize(speech("Hello from Katie.", { format: "wav" }))));
    expect(wav).toMatchObject({ sampleRate: 24_000, channels: 1, bitsPerSample: 16, dataBytes: pcm.length });
    const last = sandbox.requests.filter((r) => r.path === "/tts/bytes").at(-1);
    expect(last).toMatchObject({ method: "POST", status: 200, model: CARTESIA_DEFAULT_MODEL });
  });

  it("is Cartesia's wire format: Cartesia-Version and X-API-Key required, JSON errors", async () => {
    const body = JSON.stringify({
      model_id: "sonic-3",
      transcript: "Hi.",
      voice: { mode: "id", id: KATIE },
      output_format: { container: "raw", encoding: "pcm_s16le", sample_rate: 16_000 },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${sandbox.cartesia.url}/tts/bytes`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    expect((await post({ "X-API-Key": sandbox.cartesia.apiKey, "Cartesia-Version": CARTESIA_VERSION })).status).toBe(200);
    const unversioned = await post({ "X-API-Key": sandbox.cartesia.apiKey });
    expect(unversioned.status).toBe(400);
    expect(await unversioned.json()).toMatchObject({ error: expect.stringContaining("Cartesia-Version") });
    expect((await post({ "Cartesia-Version": CARTESIA_VERSION })).status).toBe(401);
    // Newer versions word errors as title, message and error_code.
    const titled = await post({ "Cartesia-Version": "2026-03-01", "X-API-Key": "sk_car_wrong" });
    expect(titled.status).toBe(401);
    expect(await titled.json()).toMatchObject({ title: "Unauthorized", error_code: "unauthorized", message: expect.any(String) });
  });

  it("a refused key is a `rejected` ProviderError with the status, never retried, without the key", async () => {
    const wrong = new Cartesia(sandbox.cartesia.url, "sk_car_not_the_key", CALL, nodeConnect);
    const before = sandbox.requests.length;
    const err = await failure(() => wrong.synthesize(speech("Hello.")));
    expect(err).toMatchObject({ failure: "rejected", status: 401 });
    expect(err.message).not.toContain("sk_car_not_the_key");
    expect(sandbox.requests.length - before).toBe(1);
  });
});

describe("Cartesia: the WebSocket", () => {
  it("synthesizeStream: one context, the same audio as the bytes endpoint", async () => {
    const parts: Uint8Array[] = [];
    for await (const chunk of cartesia.synthesizeStream(speech("The streamed sentence."))) parts.push(chunk);
    expect(parts.length).toBeGreaterThan(1);
    sameSpeech(concat(parts), [await bytesOf("The streamed sentence.")]);
    expect(sandbox.requests.filter((r) => r.path === "/tts/websocket").at(-1)).toMatchObject({ status: 101 });
  });

  it("openStream: text pushed in pieces is spoken a clause at a time, in order, the first before the sentence is complete", async () => {
    const stream = await cartesia.openStream(speech(""));
    const audio = stream.audio[Symbol.asyncIterator]();
    stream.push("Good morning and welcome back, ");
    // The first clause's audio comes while the rest of the text is still unwritten.
    const first = await audio.next();
    expect(first.done).toBe(false);
    stream.push("how are you ");
    stream.push("doing today? I am doing ");
    stream.push("very well.");
    stream.end();
    const parts = [first.value as Uint8Array];
    for (let next = await audio.next(); !next.done; next = await audio.next()) parts.push(next.value);
    // Spoken a clause at a time, each clause as it would be alone.
    sameSpeech(concat(parts), [
      await bytesOf("Good morning and welcome back,"),
      await bytesOf("how are you doing today?"),
      await bytesOf("I am doing very well."),
    ]);
    expect(() => stream.push("more")).toThrow(/ended/);
  });

  it("openStream with `bufferDelayMs: 0` (the caller cuts the clauses): each input is spoken as it comes", async () => {
    const stream = await cartesia.openStream(speech(""), undefined, { bufferDelayMs: 0 });
    const audio = stream.audio[Symbol.asyncIterator]();
    stream.push("Good morning and");
    const first = await audio.next(); // not held back for a clause end
    expect(first.done).toBe(false);
    stream.push(" welcome back.");
    stream.end();
    const parts = [first.value as Uint8Array];
    for (let next = await audio.next(); !next.done; next = await audio.next()) parts.push(next.value);
    sameSpeech(concat(parts), [await bytesOf("Good morning and"), await bytesOf("welcome back.")]);
  });

  it("a cancel through the signal stops the context: the audio ends with a `canceled` error", async () => {
    const controller = new AbortController();
    const stream = await cartesia.openStream(speech(""), controller.signal);
    stream.push("This sentence is long enough to take several chunks of audio, ");
    const audio = stream.audio[Symbol.asyncIterator]();
    expect((await audio.next()).done).toBe(false);
    controller.abort();
    const err = await failure(async () => {
      for (let next = await audio.next(); !next.done; next = await audio.next());
    });
    expect(err.failure).toBe("canceled");
    // An already aborted signal refuses at once, before any socket is opened.
    const opened = sandbox.requests.filter((r) => r.path === "/tts/websocket").length;
    expect((await failure(() => cartesia.openStream(speech(""), controller.signal))).failure).toBe("canceled");
    expect(sandbox.requests.filter((r) => r.path === "/tts/websocket").length).toBe(opened);
  });

  it("a refused key refuses the upgrade: a `rejected` ProviderError with 401", async () => {
    const wrong = new Cartesia(sandbox.cartesia.url, "sk_car_not_the_key", CALL, nodeConnect);
    const err = await failure(() => wrong.openStream(speech("")));
    expect(err).toMatchObject({ failure: "rejected", status: 401 });
    expect(err.message).not.toContain("sk_car_not_the_key");
    expect(sandbox.requests.filter((r) => r.path === "/tts/websocket").at(-1)).toMatchObject({ status: 401 });
  });

  it("Cartesia's `error` message ends the audio with a ProviderError carrying its status and words", async () => {
    const stream = await cartesia.openStream(speech("", { voice: "not-a-voice" }));
    stream.push("Hello.");
    stream.end();
    const err = await failure(async () => {
      for await (const _ of stream.audio);
    });
    expect(err).toMatchObject({ failure: "rejected", status: 404 });
    expect(err.message).toMatch(/No voice with id 'not-a-voice'/);
    // The bytes endpoint says the same as an HTTP status.
    expect(await failure(() => cartesia.synthesize(speech("Hello.", { voice: "not-a-voice" })))).toMatchObject({
      failure: "rejected",
      status: 404,
    });
  });

  it("speaks Cartesia's protocol to any client: ?cartesia_version= and ?api_key=, contexts, done", async () => {
    const url = `${sandbox.cartesia.url.replace(/^http/, "ws")}/tts/websocket?cartesia_version=${CARTESIA_VERSION}&api_key=${sandbox.cartesia.apiKey}`;
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const messages: Array<Record<string, unknown>> = [];
    const done = new Promise<void>((resolve) =>
      ws.on("message", (data) => {
        const msg = JSON.parse(String(data)) as Record<string, unknown>;
        messages.push(msg);
        if (msg.type === "done" || msg.type === "error") resolve();
      }),
    );
    ws.send(
      JSON.stringify({
        model_id: "sonic-2",
        transcript: "Hi.",
        voice: { mode: "id", id: KATIE },
        output_format: { container: "raw", encoding: "pcm_s16le", sample_rate: 8000 },
        context_id: "ctx-1",
        continue: false,
      }),
    );
    await done;
    ws.close();
    expect(messages.at(-1)).toEqual({ type: "done", done: true, status_code: 206, context_id: "ctx-1" });
    const chunks = messages.slice(0, -1);
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks)
      expect(c).toMatchObject({ type: "chunk", done: false, status_code: 206, context_id: "ctx-1", data: expect.any(String) });
  });
});
