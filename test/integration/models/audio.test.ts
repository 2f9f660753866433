// /v1/tts and /v1/stt (and the SDK's /v1/audio/speech and /v1/audio/transcriptions): real
// audio from the sandbox provider, parsed here, and transcribed back.
import OpenAI, { toFile } from "openai";
import { describe, expect, it } from "vitest";
import { parseWav, pcmToWav } from "../../../src/lib/audio";
import { baseUrl, createWorkspace, expectError, json, settled, type Workspace } from "../../support/harness";

const ALLOY = "00000000-0000-7000-8000-000000000001";
type Transcript = { text: string; language: string | null; durationSeconds: number };

async function tts(ws: Workspace, body: Record<string, unknown>) {
  return ws.api("/v1/tts", { method: "POST", json: { voiceId: ALLOY, ...body } });
}

function upload(ws: Workspace, path: string, file: Blob | null, fields: Record<string, string> = {}) {
  const form = new FormData();
  if (file) form.set("file", file, "speech.wav");
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return ws.api(path, { method: "POST", body: form });
}

describe("text to speech", () => {
  it("returns a real WAV of the whole sentence, charged by characters", async () => {
    const ws = await createWorkspace();
    const text = "Hello! This is the platform speaking.";
    const res = await tts(ws, { text });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(res.headers.get("x-characters")).toBe(String(text.length));
    const wav = parseWav(new Uint8Array(await res.arrayBuffer()));
    expect(wav).not.toBeNull();
    expect(wav?.bitsPerSample).toBe(16);
    expect(wav?.durationSeconds).toBeGreaterThan(0.5);
    await settled(ws.organizationId); // the answer does not wait for its settlement
    const usage = await json<{
      requests: { data: Array<{ modality: string; unit: string; quantity: number; cost: number; status: number }> };
    }>(await ws.api("/v1/usage"));
    expect(usage.requests.data[0]).toMatchObject({ modality: "tts", unit: "characters", quantity: text.length, status: 200 });
    expect(usage.requests.data[0]?.cost).toBeGreaterThan(0);
  });

  it("returns raw PCM, and works through the SDK's audio.speech with a voice name", async () => {
    const ws = await createWorkspace();
    const pcm = await tts(ws, { text: "Raw samples.", format: "pcm" });
    expect(pcm.headers.get("content-type")).toBe("audio/pcm");
    const bytes = (await pcm.arrayBuffer()).byteLength;
    expect(bytes % 2).toBe(0);
    expect(bytes).toBeGreaterThan(10_000);

    const openai = new OpenAI({ baseURL: `${baseUrl()}/v1`, apiKey: ws.apiKey, maxRetries: 0 });
    const speech = await openai.audio.speech.create({ model: "tts-1", voice: "alloy", input: "Through the SDK.", response_format: "wav" });
    expect(parseWav(new Uint8Array(await speech.arrayBuffer()))?.durationSeconds).toBeGreaterThan(0.3);
  });

  it("refuses unknown voices and another workspace's voice alike, and a provider refusal costs nothing", async () => {
    const ws = await createWorkspace();
    const other = await createWorkspace();
    const created = await other.api("/v1/voices", {
      method: "POST",
      json: { name: "Theirs", provider: "sandbox", providerVoiceId: "echo", language: "en" },
    });
    const { id: theirs } = await json<{ id: string }>(created);
    await expectError(await tts(ws, { text: "x", voiceId: theirs }), 400, "validation_failed");
    await expectError(await tts(ws, { text: "x", voiceId: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77" }), 400, "validation_failed");
    await expectError(await tts(ws, { text: "" }), 400, "validation_failed");
    await expectError(await tts(ws, { text: "x".repeat(4097) }), 400, "validation_failed");
    const before = await json<{ credits: { remainingMicro: number } }>(await ws.api("/v1/usage"));
    await expectError(await tts(ws, { text: "mp3 please", format: "mp3" }), 502, "provider_error");
    const after = await json<{
      credits: { remainingMicro: number };
      requests: { data: Array<{ status: number; errorCode: string; cost: number }> };
    }>(await ws.api("/v1/usage"));
    expect(after.credits.remainingMicro).toBe(before.credits.remainingMicro);
    expect(after.requests.data[0]).toMatchObject({ status: 502, errorCode: "provider_error", cost: 0 });
  });
});

describe("speech to text", () => {
  it("round-trips the sandbox's own speech, metered by seconds of audio", async () => {
    const ws = await createWorkspace();
    const text = "Please call me back tomorrow morning.";
    const audio = new Uint8Array(await (await tts(ws, { text })).arrayBuffer());
    const seconds = parseWav(audio)?.durationSeconds ?? 0;
    const res = await upload(ws, "/v1/stt", new Blob([audio], { type: "audio/wav" }), { language: "en" });
    expect(res.status).toBe(200);
    const t = await json<Transcript>(res);
    expect(t.text).toBe(text);
    expect(t.durationSeconds).toBeCloseTo(seconds, 2);
    await settled(ws.organizationId); // the answer does not wait for its settlement
    const usage = await json<{ requests: { data: Array<{ modality: string; unit: string; quantity: number }> } }>(
      await ws.api("/v1/usage"),
    );
    expect(usage.requests.data[0]).toMatchObject({ modality: "stt", unit: "audio_ms", quantity: Math.ceil(seconds * 1000) });
  });

  it("works through the SDK's audio.transcriptions", async () => {
    const ws = await createWorkspace();
    const audio = await (await tts(ws, { text: "Transcribe me." })).arrayBuffer();
    const openai = new OpenAI({ baseURL: `${baseUrl()}/v1`, apiKey: ws.apiKey, maxRetries: 0 });
    const t = await openai.audio.transcriptions.create({ file: await toFile(Buffer.from(audio), "speech.wav"), model: "whisper-1" });
    expect(t.text).toBe("Transcribe me.");
  });

  it("transcribes audio it did not make as silence, never inventing words", async () => {
    const ws = await createWorkspace();
    const silence = pcmToWav(new Uint8Array(32_000), 16_000);
    const t = await json<Transcript>(await upload(ws, "/v1/stt", new Blob([silence], { type: "audio/wav" })));
    expect(t.text).toBe("");
    expect(t.durationSeconds).toBeCloseTo(1, 3);
  });

  it("refuses what is not audio, corrupt WAV, malformed multipart, a missing file and JSON bodies", async () => {
    const ws = await createWorkspace();
    await expectError(await upload(ws, "/v1/stt", new Blob(["just some text"], { type: "text/plain" })), 400, "invalid_audio");
    const corrupt = new Uint8Array(64);
    corrupt.set(new TextEncoder().encode("RIFF\0\0\0\0WAVEjunk"), 0);
    await expectError(await upload(ws, "/v1/stt", new Blob([corrupt])), 400, "invalid_audio");
    await expectError(await upload(ws, "/v1/stt", new Blob([])), 400, "invalid_audio");
    await expectError(await upload(ws, "/v1/stt", null, { model: "whisper-1" }), 400, "validation_failed");
    const malformed = await ws.api("/v1/stt", {
      method: "POST",
      body: "--nope\r\ngarbage",
      headers: { "content-type": "multipart/form-data; boundary=xyz" },
    });
    await expectError(malformed, 400, "bad_request");
    await expectError(await ws.api("/v1/stt", { method: "POST", json: { file: "x" } }), 415, "unsupported_media_type");
  });
});
