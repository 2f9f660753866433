// The provider sandbox speaks ElevenLabs' text-to-speech API well enough that the platform's
// production ElevenLabs adapter runs against it unchanged (only the base URL differs), with
// ElevenLabs' wire format: xi-api-key, output_format in the query, {text, model_id,
// voice_settings}, the /stream variant, and errors as {detail: …}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ELEVENLABS_VOICES } from "../../../dev/sandbox/elevenlabs";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { parseWav } from "../../../src/lib/audio";
import type { ApiError } from "../../../src/lib/errors";
import { ElevenLabs } from "../../../src/providers/elevenlabs";
import { ProviderError, toApiError } from "../../../src/providers/http";

let sandbox: ProviderSandbox;
let adapter: ElevenLabs;

const RACHEL = "21m00Tcm4TlvDq8ikWAM";
const ADAM = "pNInz6obpgDQGcFmaJgB";
const JOSH = "TxGEqnHWrfWFTfGW9XjX";

beforeAll(async () => {
  sandbox = await startProviderSandbox();
  adapter = new ElevenLabs(sandbox.elevenLabs.url, sandbox.elevenLabs.apiKey, { timeoutMs: 10_000, retries: 2, backoffMs: 10 });
});
afterAll(() => sandbox.stop());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.elevenLabs.url}${path}`, {
    method: "POST",
    headers: { "xi-api-key": sandbox.elevenLabs.apiKey, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, v) => a + v * v, 0) / Math.max(1, s.length));

describe("provider sandbox: ElevenLabs text to speech", () => {
  it("serves the production adapter: 24 kHz PCM wrapped as WAV, and raw PCM", async () => {
    const wavBytes = await adapter.synthesize({
      text: "Hello from Rachel.",
      voice: RACHEL,
      model: "eleven_multilingual_v2",
      format: "wav",
    });
    const wav = parseWav(new Uint8Array(wavBytes));
    expect(wav).toMatchObject({ sampleRate: 24000, channels: 1, bitsPerSample: 16 });
    expect(wav?.durationSeconds).toBeGreaterThan(0.5);
    const pcm = await adapter.synthesize({ text: "Hello from Adam.", voice: ADAM, model: "eleven_flash_v2_5", format: "pcm", speed: 1.2 });
    expect(pcm.byteLength % 2).toBe(0);
    expect(rms(new Int16Array(pcm))).toBeGreaterThan(500);
    const last = sandbox.requests.at(-1);
    expect(last).toMatchObject({ method: "POST", path: `/v1/text-to-speech/${ADAM}`, model: "eleven_flash_v2_5", status: 200 });
  });

  it("speaks each premade voice differently, the same bytes for the same request (male voices: eSpeak's female ones breathe), at the asked rate", async () => {
    const speak = async (voice: string, format = "pcm_16000") => {
      const res = await post(`/v1/text-to-speech/${voice}?output_format=${format}`, {
        text: "The same words.",
        model_id: "eleven_multilingual_v2",
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("request-id")).toBeTruthy();
      expect(res.headers.get("x-character-count")).toBe("15");
      return Buffer.from(await res.arrayBuffer());
    };
    const [a, b, again, at8k] = await Promise.all([speak(ADAM), speak(JOSH), speak(ADAM), speak(ADAM, "pcm_8000")]);
    expect(a.equals(again)).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(at8k.length / a.length).toBeCloseTo(0.5, 2);
    expect(Object.keys(ELEVENLABS_VOICES)).toEqual(expect.arrayContaining([RACHEL, ADAM, JOSH]));
  });

  it("answers 8 kHz μ-law, and the /stream variant with the same bytes, chunked", async () => {
    const body = { text: "Streaming, please.", voice_settings: { stability: 0.5, similarity_boost: 0.75, use_speaker_boost: true } };
    const whole = await post(`/v1/text-to-speech/${ADAM}?output_format=ulaw_8000`, body);
    expect(whole.headers.get("content-type")).toBe("audio/basic");
    const streamed = await post(`/v1/text-to-speech/${ADAM}/stream?output_format=ulaw_8000`, body);
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-length")).toBeNull();
    expect(streamed.headers.get("transfer-encoding")).toBe("chunked");
    const [x, y] = [Buffer.from(await whole.arrayBuffer()), Buffer.from(await streamed.arrayBuffer())];
    expect(x.length).toBeGreaterThan(4000);
    expect(y.equals(x)).toBe(true);
  });

  it("refuses a missing or wrong key with 401 in ElevenLabs' shape", async () => {
    const none = await post(`/v1/text-to-speech/${RACHEL}?output_format=pcm_24000`, { text: "x" }, { "xi-api-key": "" });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ detail: { status: "missing_api_key", message: expect.any(String) } });
    // The OpenAI side's key (a Bearer token) does not open ElevenLabs' door.
    const bearer = await post(
      `/v1/text-to-speech/${RACHEL}?output_format=pcm_24000`,
      { text: "x" },
      {
        "xi-api-key": sandbox.apiKey,
      },
    );
    expect(bearer.status).toBe(401);
    expect(((await bearer.json()) as { detail: { status: string } }).detail.status).toBe("invalid_api_key");
    const wrong = await new ElevenLabs(sandbox.elevenLabs.url, "sk_wrongwrongwrong1234", { timeoutMs: 5000, retries: 0 })
      .synthesize({ text: "x", voice: RACHEL, model: "eleven_multilingual_v2", format: "wav" })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ProviderError);
    expect((wrong as ProviderError).status).toBe(401);
    expect((wrong as Error).message).not.toContain("sk_wrongwrongwrong1234");
  });

  it("refuses malformed requests as ElevenLabs does: 422 for the body's shape, 400 for the text, 404 for the voice", async () => {
    const path = `/v1/text-to-speech/${RACHEL}?output_format=pcm_24000`;
    const missing = await post(path, { model_id: "eleven_multilingual_v2" });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({ detail: [{ type: "missing", loc: ["body", "text"], msg: "Field required" }] });
    expect((await post(path, "{not json")).status).toBe(422);
    expect((await post(path, { text: "x", voice_settings: { speed: 3 } })).status).toBe(422);
    expect((await post(path, { text: "x", voice_settings: { stability: 2 } })).status).toBe(422);
    expect((await post(`/v1/text-to-speech/${RACHEL}?output_format=wav_9`, { text: "x" })).status).toBe(422);
    const long = await post(path, { text: "x".repeat(10_001) });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { detail: { status: string } }).detail.status).toBe("max_character_limit_exceeded");
    const unknown = await post("/v1/text-to-speech/no-such-voice?output_format=pcm_24000", { text: "x" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: { status: string } }).detail.status).toBe("voice_not_found");
    // Through the adapter, an unknown voice is the caller's mistake (our 400), not a provider failure.
    const viaAdapter = await adapter
      .synthesize({ text: "x", voice: "missingvoice00000000", model: "m", format: "pcm" })
      .catch((e: unknown) => e);
    expect((toApiError(viaAdapter) as ApiError).code).toBe("validation_failed");
    expect(
      (await fetch(`${sandbox.elevenLabs.url}/v1/text-to-speech/${RACHEL}`, { headers: { "xi-api-key": sandbox.elevenLabs.apiKey } }))
        .status,
    ).toBe(405);
  });

  it("refuses MP3 (the API's default format), which it cannot encode, saying so", async () => {
    const res = await post(`/v1/text-to-speech/${RACHEL}`, { text: "x" });
    expect(res.status).toBe(400);
    const { detail } = (await res.json()) as { detail: { status: string; message: string } };
    expect(detail.status).toBe("unsupported_output_format");
    expect(detail.message).toMatch(/mp3_44100_128 \(the default/);
    const viaAdapter = await adapter.synthesize({ text: "x", voice: RACHEL, model: "m", format: "mp3" }).catch((e: unknown) => e);
    expect((toApiError(viaAdapter) as ApiError).code).toBe("provider_error");
  });

  it("selects failures through model_id, like the OpenAI side: fault-500 after retries, fault-flaky-2 recovers", async () => {
    const failing = await adapter.synthesize({ text: "x", voice: RACHEL, model: "fault-500", format: "pcm" }).catch((e: unknown) => e);
    expect((failing as ProviderError).failure).toBe("upstream");
    const five = await post(`/v1/text-to-speech/${RACHEL}?output_format=pcm_24000`, { text: "x", model_id: "fault-500" });
    expect(five.status).toBe(500);
    expect(((await five.json()) as { detail: { status: string } }).detail.status).toBe("server_error");
    const flaky = await adapter.synthesize({ text: "Third time lucky.", voice: ADAM, model: "fault-flaky-2", format: "pcm" });
    expect(flaky.byteLength).toBeGreaterThan(1000);
    const limited = await post(`/v1/text-to-speech/${RACHEL}?output_format=pcm_24000`, { text: "x", model_id: "fault-429" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
  });
});
