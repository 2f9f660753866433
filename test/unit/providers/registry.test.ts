// The ElevenLabs adapter against a stand-in speaking its API, and the shared provider HTTP
// layer's failure handling (no provider key may leak into an error).
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../../../src/env";
import { parseWav } from "../../../src/lib/audio";
import { ApiError } from "../../../src/lib/errors";
import { ElevenLabs } from "../../../src/providers/elevenlabs";
import { ProviderError, providerFetch, toApiError } from "../../../src/providers/http";
import { chatProvider, synthesizableProviders, ttsProvider } from "../../../src/providers/registry";

let server: Server;
let base: string;
const seen: Array<{ url: string; key: string | undefined; body: unknown }> = [];
let failuresLeft = 0;

beforeAll(async () => {
  server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : null;
    seen.push({ url: req.url ?? "", key: req.headers["xi-api-key"] as string | undefined, body });
    if (req.headers["xi-api-key"] !== "xi-test-key") {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ detail: { message: `invalid key ${req.headers["xi-api-key"]}` } }));
      return;
    }
    if (failuresLeft > 0) {
      failuresLeft--;
      res.writeHead(503).end("busy");
      return;
    }
    const url = new URL(req.url ?? "/", "http://x");
    const format = url.searchParams.get("output_format");
    if (format?.startsWith("pcm_")) res.writeHead(200, { "content-type": "audio/pcm" }).end(Buffer.alloc(48_000, 1));
    else res.writeHead(200, { "content-type": "audio/mpeg" }).end(Buffer.from([0xff, 0xfb, 0x90, 0x00]));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const call = { timeoutMs: 2000, retries: 2, backoffMs: 10 };

describe("ElevenLabs adapter", () => {
  it("asks for 24 kHz PCM and wraps it in a WAV header, with the key in xi-api-key", async () => {
    const audio = await new ElevenLabs(base, "xi-test-key", call).synthesize({
      text: "Hi",
      voice: "21m00Tcm4TlvDq8ikWAM",
      model: "eleven_multilingual_v2",
      format: "wav",
    });
    const wav = parseWav(new Uint8Array(audio));
    expect(wav).toMatchObject({ sampleRate: 24000, channels: 1, bitsPerSample: 16 });
    expect(wav?.durationSeconds).toBeCloseTo(1, 5);
    const last = seen.at(-1);
    expect(last?.url).toBe("/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM?output_format=pcm_24000");
    expect(last?.body).toEqual({ text: "Hi", model_id: "eleven_multilingual_v2" });
  });

  it("passes MP3 through", async () => {
    const audio = new Uint8Array(
      await new ElevenLabs(base, "xi-test-key", call).synthesize({ text: "Hi", voice: "v", model: "m", format: "mp3" }),
    );
    expect([...audio.slice(0, 2)]).toEqual([0xff, 0xfb]);
    expect(seen.at(-1)?.url).toContain("output_format=mp3_44100_128");
  });

  it("retries 5xx and succeeds", async () => {
    failuresLeft = 2;
    const audio = await new ElevenLabs(base, "xi-test-key", call).synthesize({ text: "Hi", voice: "v", model: "m", format: "pcm" });
    expect(audio.byteLength).toBe(48_000);
    expect(failuresLeft).toBe(0);
  });

  it("a refusal becomes our error without the provider's key in it", async () => {
    const err = await new ElevenLabs(base, "xi-wrongkeywrongkey123", call)
      .synthesize({ text: "Hi", voice: "v", model: "m", format: "wav" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).failure).toBe("rejected");
    expect((err as Error).message).not.toContain("xi-wrongkeywrongkey123");
    const api = toApiError(err);
    expect(api).toBeInstanceOf(ApiError);
    expect((api as ApiError).code).toBe("provider_error");
  });
});

describe("provider HTTP layer", () => {
  it("turns an unreachable provider and a timeout into ProviderErrors", async () => {
    const down = await providerFetch("p", "http://127.0.0.1:9/x", { method: "POST" }, { timeoutMs: 500, retries: 0 }).catch(
      (e: unknown) => e,
    );
    expect((down as ProviderError).failure).toBe("upstream");
    const slow = createServer(() => undefined); // never answers
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}/`;
    const timedOut = await providerFetch("p", url, { method: "POST" }, { timeoutMs: 200, retries: 1, backoffMs: 10 }).catch(
      (e: unknown) => e,
    );
    slow.closeAllConnections();
    slow.close();
    expect((timedOut as ProviderError).failure).toBe("timeout");
    expect((toApiError(timedOut) as ApiError).code).toBe("provider_timeout");
  });
});

describe("provider HTTP layer, called off", () => {
  it("a caller's signal calls the request off at once, with no retry", async () => {
    let requests = 0;
    const slow = createServer(() => {
      requests++; // never answers
    });
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(slow.address() as { port: number }).port}/`;
    const off = new AbortController();
    const started = Date.now();
    const pending = providerFetch("p", url, { method: "POST", signal: off.signal }, { timeoutMs: 10_000, retries: 3, backoffMs: 10 });
    setTimeout(() => off.abort(new Error("hold refused")), 100);
    const err = await pending.catch((e: unknown) => e);
    slow.closeAllConnections();
    slow.close();
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).failure).toBe("canceled");
    expect(Date.now() - started).toBeLessThan(5_000); // not the 10 s timeout, not the retries
    expect(requests).toBe(1);
  });
});

describe("provider registry", () => {
  const config = (keys: { OPENAI_API_KEY?: string; ELEVENLABS_API_KEY?: string; CARTESIA_API_KEY?: string }) =>
    ({
      OPENAI_BASE_URL: "https://api.openai.com/v1",
      ELEVENLABS_BASE_URL: "https://api.elevenlabs.io",
      CARTESIA_BASE_URL: "https://api.cartesia.ai",
      PROVIDER_TIMEOUT_MS: 1000,
      PROVIDER_RETRIES: 0,
      ...keys,
    }) as AppConfig;
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err as ApiError;
    }
    throw new Error("no refusal");
  };

  it("a provider this deployment has no key for is 503 provider_not_configured, not 502", () => {
    const none = config({});
    for (const err of [
      refusal(() => ttsProvider(none, "elevenlabs")),
      refusal(() => ttsProvider(none, "cartesia")),
      refusal(() => ttsProvider(none, "openai")),
      refusal(() => chatProvider(none)),
    ]) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe("provider_not_configured");
      expect(err.status).toBe(503);
    }
    expect(refusal(() => ttsProvider(none, "deepgram")).code).toBe("validation_failed");
  });

  it("lists the voice providers it can synthesize now", () => {
    expect(synthesizableProviders(config({}))).toEqual([]);
    expect(synthesizableProviders(config({ OPENAI_API_KEY: "sk-x" }))).toEqual(["openai", "sandbox"]);
    expect(synthesizableProviders(config({ OPENAI_API_KEY: "sk-x", ELEVENLABS_API_KEY: "xi" }))).toEqual([
      "openai",
      "sandbox",
      "elevenlabs",
    ]);
    expect(synthesizableProviders(config({ CARTESIA_API_KEY: "sk_car_x" }))).toEqual(["cartesia"]);
    expect(ttsProvider(config({ ELEVENLABS_API_KEY: "xi" }), "elevenlabs").name).toBe("elevenlabs");
    expect(ttsProvider(config({ CARTESIA_API_KEY: "sk_car_x" }), "cartesia").name).toBe("cartesia");
  });
});
