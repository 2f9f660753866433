// Every voice GET /v1/voices lists says whether this deployment can synthesize it: on the local
// stack the provider sandbox speaks ElevenLabs' API too, so every system voice works; a worker
// without ElevenLabs configured lists its voices as not available and answers 503
// provider_not_configured (not 502, which means a provider failed), charging nothing.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { parseWav } from "../../../src/lib/audio";
import { baseUrl, createWorkspace, expectError, json, settled, stack, type Workspace } from "../../support/harness";

interface Voice {
  id: string;
  name: string;
  provider: string;
  available: boolean;
}
interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

const ADAM = "00000000-0000-7000-8000-000000000011";
const RACHEL = "00000000-0000-7000-8000-000000000010";
const ALLOY = "00000000-0000-7000-8000-000000000001";

const api = (base: string, ws: Workspace, path: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(base + path, {
    ...init,
    headers: { authorization: `Bearer ${ws.apiKey}`, ...(init.json !== undefined && { "content-type": "application/json" }) },
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });

async function allVoices(base: string, ws: Workspace, query = ""): Promise<Voice[]> {
  const all: Voice[] = [];
  let cursor: string | null = null;
  do {
    const res = await api(base, ws, `/v1/voices?limit=100${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    const page = await json<Page<Voice>>(res);
    all.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

describe("voices on the local stack", () => {
  it("an ElevenLabs system voice speaks, as does every system voice", async () => {
    const ws = await createWorkspace();
    const voices = await allVoices(baseUrl(), ws);
    const first = voices.find((v) => v.id === ADAM) as Voice;
    expect(first).toMatchObject({ id: ADAM, provider: "elevenlabs", available: true });
    expect(voices.every((v) => v.available)).toBe(true);

    const res = await ws.api("/v1/tts", { method: "POST", json: { voiceId: first.id, text: "Hello, I am Adam." } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    const wav = parseWav(new Uint8Array(await res.arrayBuffer()));
    expect(wav).toMatchObject({ sampleRate: 24000, channels: 1, bitsPerSample: 16 });
    expect(wav?.durationSeconds).toBeGreaterThan(0.5);
    // The answer goes out before its charge is written (docs/models.md): read the log once it is.
    await settled(ws.organizationId);
    const usage = await json<{ requests: { data: Array<{ provider: string; model: string; status: number; cost: number }> } }>(
      await ws.api("/v1/usage"),
    );
    expect(usage.requests.data[0]).toMatchObject({ provider: "elevenlabs", model: "eleven_multilingual_v2", status: 200 });
    expect(usage.requests.data[0]?.cost).toBeGreaterThan(0);

    // Through the SDK's path, by name, as PCM.
    const openai = new OpenAI({ baseURL: `${baseUrl()}/v1`, apiKey: ws.apiKey, maxRetries: 0 });
    const speech = await openai.audio.speech.create({
      model: "eleven_flash_v2_5",
      voice: "Rachel",
      input: "And I am Rachel.",
      response_format: "pcm",
    });
    expect((await speech.arrayBuffer()).byteLength).toBeGreaterThan(10_000);

    // A Cartesia system voice speaks through the sandbox's Cartesia API, charged at Sonic's price.
    const katie = voices.find((v) => v.provider === "cartesia") as Voice;
    const sonic = await ws.api("/v1/tts", { method: "POST", json: { voiceId: katie.id, text: "Hello, I am Katie." } });
    expect(sonic.status, await sonic.clone().text()).toBe(200);
    expect(parseWav(new Uint8Array(await sonic.arrayBuffer()))?.durationSeconds).toBeGreaterThan(0.5);
    await settled(ws.organizationId);
    const after = await json<{ requests: { data: Array<{ provider: string; model: string; status: number }> } }>(await ws.api("/v1/usage"));
    expect(after.requests.data[0]).toMatchObject({ provider: "cartesia", model: "sonic-3", status: 200 });
  });

  it("says which voices cannot be synthesized here: providers without an adapter", async () => {
    const ws = await createWorkspace();
    const made = await ws.api("/v1/voices", {
      method: "POST",
      json: { name: "Deepgram voice", provider: "deepgram", providerVoiceId: "aura-2-thalia-en", language: "en" },
    });
    expect(made.status).toBe(201);
    const created = await json<Voice>(made);
    expect(created.available).toBe(false);
    expect(await json<Voice>(await ws.api(`/v1/voices/${created.id}`))).toMatchObject({ available: false });
    const patched = await ws.api(`/v1/voices/${created.id}`, { method: "PATCH", json: { provider: "sandbox", providerVoiceId: "echo" } });
    expect(await json<Voice>(patched)).toMatchObject({ provider: "sandbox", available: true });

    const available = await allVoices(baseUrl(), ws, "&available=true");
    expect(available.map((v) => v.id)).toContain(created.id);
    await ws.api(`/v1/voices/${created.id}`, { method: "PATCH", json: { provider: "google" } });
    expect((await allVoices(baseUrl(), ws, "&available=true")).map((v) => v.id)).not.toContain(created.id);
    expect((await allVoices(baseUrl(), ws, "&available=false")).map((v) => v.id)).toEqual([created.id]);
    await expectError(await ws.api("/v1/voices?available=yes"), 400, "validation_failed");
  });
});

describe("voices on a worker without ElevenLabs", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;

  beforeAll(async () => {
    const { ELEVENLABS_API_KEY: _key, ELEVENLABS_BASE_URL: _url, ...vars } = stack().vars;
    worker = await startWorker(vars);
  }, 120_000);
  afterAll(() => worker?.stop());

  it("lists ElevenLabs voices as not available, and answers 503 provider_not_configured for them, charging nothing", async () => {
    const ws = await createWorkspace();
    const voices = await allVoices(worker.baseUrl, ws);
    for (const v of voices) expect(v.available, v.name).toBe(v.provider !== "elevenlabs");
    expect(await json<Voice>(await api(worker.baseUrl, ws, `/v1/voices/${RACHEL}`))).toMatchObject({ available: false });
    expect((await allVoices(worker.baseUrl, ws, "&available=true")).map((v) => v.id)).not.toContain(ADAM);

    const before = await json<{ credits: { remainingMicro: number } }>(await api(worker.baseUrl, ws, "/v1/usage"));
    const body = await expectError(
      await api(worker.baseUrl, ws, "/v1/tts", { method: "POST", json: { voiceId: ADAM, text: "Hello." } }),
      503,
      "provider_not_configured",
    );
    expect(body.message).toMatch(/ElevenLabs/);
    await expectError(
      await api(worker.baseUrl, ws, "/v1/audio/speech", { method: "POST", json: { model: "tts-1", voice: "Rachel", input: "Hi." } }),
      503,
      "provider_not_configured",
    );
    const after = await json<{ credits: { remainingMicro: number } }>(await api(worker.baseUrl, ws, "/v1/usage"));
    expect(after.credits.remainingMicro).toBe(before.credits.remainingMicro);

    // The other voices still speak on that worker.
    const alloy = await api(worker.baseUrl, ws, "/v1/tts", { method: "POST", json: { voiceId: ALLOY, text: "Still here." } });
    expect(alloy.status).toBe(200);
  });
});
