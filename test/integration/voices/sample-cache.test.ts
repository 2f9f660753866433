// A voice's sample is kept once synthesized (src/voices/samples.ts): on a worker of its own whose
// provider is a sandbox of this file's (so what the provider received can be counted), repeat
// plays make no provider request and no usage record; another workspace neither reads a kept
// sample nor plays from one (system voices included); an edited voice gets a fresh sample, a
// renamed one keeps its own.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { startWorker, type WorkerProcess } from "../../../dev/stack";
import { usageEvents } from "../../../src/db/schema";
import { ALLOY_VOICE_ID } from "../../../src/voices/service";
import { createWorkspace, json, onWorker, request, settled, signIn, stack, testDb, type Workspace } from "../../support/harness";

let sandbox: ProviderSandbox;
let worker: WorkerProcess;

beforeAll(async () => {
  sandbox = await startProviderSandbox({ latency: "instant" });
  worker = await startWorker({ ...stack().vars, OPENAI_BASE_URL: sandbox.url, OPENAI_API_KEY: sandbox.apiKey });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await sandbox?.stop();
});

/** The text-to-speech requests the provider received so far. */
const speechRequests = () => sandbox.requests.filter((r) => r.path === "/v1/audio/speech");

interface Played {
  status: number;
  source: string | null;
  audio: Buffer;
  ms: number;
}

async function play(cookie: string, voiceId: string): Promise<Played> {
  const started = performance.now();
  const res = await request(`/dashboard/voices/${voiceId}/sample`, { headers: { cookie } }, worker.baseUrl);
  const audio = Buffer.from(await res.arrayBuffer());
  return { status: res.status, source: res.headers.get("x-voice-sample"), audio, ms: performance.now() - started };
}

async function workspace(name: string): Promise<{ ws: Workspace; cookie: string }> {
  const created = await createWorkspace(name);
  return { ws: onWorker(created, worker.baseUrl), cookie: (await signIn(created.admin.email, created.admin.password)).cookie };
}

async function ownVoice(ws: Workspace, providerVoiceId: string): Promise<string> {
  const res = await ws.api("/v1/voices", {
    method: "POST",
    json: { name: "Own voice", provider: "sandbox", providerVoiceId, language: "en" },
  });
  expect(res.status).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

async function sampleUsage(ws: Workspace, voiceId: string) {
  await settled(ws.organizationId);
  return testDb()
    .select()
    .from(usageEvents)
    .where(and(eq(usageEvents.organizationId, ws.organizationId), eq(usageEvents.endpoint, `/dashboard/voices/${voiceId}/sample`)));
}

describe("voice samples, kept", () => {
  it("two plays make one provider request and one usage record; the second is the same audio, served from the store", async () => {
    const { ws, cookie } = await workspace("Sample twice");
    const before = speechRequests().length;
    const first = await play(cookie, ALLOY_VOICE_ID);
    expect(first).toMatchObject({ status: 200, source: "synthesized" });
    expect(first.audio.subarray(0, 4).toString()).toBe("RIFF");
    const second = await play(cookie, ALLOY_VOICE_ID);
    expect(second).toMatchObject({ status: 200, source: "cached" });
    expect(second.audio.equals(first.audio)).toBe(true);
    const third = await play(cookie, ALLOY_VOICE_ID);
    expect(third.source).toBe("cached");

    expect(speechRequests().slice(before)).toMatchObject([{ voice: "alloy", status: 200 }]);
    expect(await sampleUsage(ws, ALLOY_VOICE_ID)).toMatchObject([{ modality: "tts", status: 200 }]);
    console.log(`voice sample: first play ${Math.round(first.ms)} ms, kept ${Math.round(second.ms)} / ${Math.round(third.ms)} ms`);
  });

  it("keeps samples per workspace: another workspace cannot read one, and plays a system voice on its own account", async () => {
    const a = await workspace("Sample owner");
    const b = await workspace("Sample stranger");
    const voiceId = await ownVoice(a.ws, "nova");
    expect((await play(a.cookie, voiceId)).source).toBe("synthesized");
    const before = speechRequests().length;

    // A's own voice: B gets the 404 page, whatever A keeps, and nothing is synthesized.
    const refused = await play(b.cookie, voiceId);
    expect(refused.status).toBe(404);
    expect(refused.audio.subarray(0, 4).toString()).not.toBe("RIFF");
    expect(speechRequests().length).toBe(before);

    // A system voice A has played: B's first play is B's own (a provider request, B's usage record).
    expect((await play(a.cookie, ALLOY_VOICE_ID)).source).toBe("synthesized");
    const beforeB = speechRequests().length;
    expect((await play(b.cookie, ALLOY_VOICE_ID)).source).toBe("synthesized");
    expect(speechRequests().length).toBe(beforeB + 1);
    expect(await sampleUsage(b.ws, ALLOY_VOICE_ID)).toHaveLength(1);
    expect((await play(b.cookie, ALLOY_VOICE_ID)).source).toBe("cached");
    expect((await play(a.cookie, ALLOY_VOICE_ID)).source).toBe("cached");
  });

  it("gives an edited voice a fresh sample; a renamed one keeps its own; a deleted one has none", async () => {
    const { ws, cookie } = await workspace("Sample edits");
    const voiceId = await ownVoice(ws, "nova");
    const first = await play(cookie, voiceId);
    expect(first.source).toBe("synthesized");
    const before = speechRequests().length;

    // Renamed (through the API and the dashboard's form): the audio is the same, so is the sample.
    expect((await ws.api(`/v1/voices/${voiceId}`, { method: "PATCH", json: { name: "Renamed" } })).status).toBe(200);
    expect((await play(cookie, voiceId)).source).toBe("cached");
    expect(speechRequests().length).toBe(before);

    // Another provider voice: synthesized afresh with it, then kept.
    expect((await ws.api(`/v1/voices/${voiceId}`, { method: "PATCH", json: { providerVoiceId: "echo" } })).status).toBe(200);
    const edited = await play(cookie, voiceId);
    expect(edited.source).toBe("synthesized");
    expect(edited.audio.equals(first.audio)).toBe(false);
    expect(speechRequests().slice(before)).toMatchObject([{ voice: "echo", status: 200 }]);
    expect((await play(cookie, voiceId)).source).toBe("cached");

    // Back to the first voice: its old sample was dropped with the edit, so it is synthesized again.
    expect((await ws.api(`/v1/voices/${voiceId}`, { method: "PATCH", json: { providerVoiceId: "nova" } })).status).toBe(200);
    expect((await play(cookie, voiceId)).source).toBe("synthesized");
    expect(await sampleUsage(ws, voiceId)).toHaveLength(3);

    expect((await ws.api(`/v1/voices/${voiceId}`, { method: "DELETE" })).status).toBe(204);
    expect((await play(cookie, voiceId)).status).toBe(404);
  });
});
