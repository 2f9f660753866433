// The kept voice samples' rules (src/voices/samples.ts) against an in-memory bucket: what the key
// is made of, the size cap, a store that fails, and the cleanup when a voice changes or goes.
// (Through the worker and its R2 bucket: test/integration/voices/sample-cache.test.ts.)
import { describe, expect, it, vi } from "vitest";
import type { Providers } from "../../../src/providers/registry";
import { forgetVoiceSamples, SAMPLE_MAX_BYTES, sampleKey, voiceSample } from "../../../src/voices/samples";

const ORG = "0193b6e2-0000-7000-8000-000000000001";
const OTHER_ORG = "0193b6e2-0000-7000-8000-000000000002";
const voice = { id: "0193b6e2-0000-7000-8000-0000000000aa", provider: "sandbox", providerVoiceId: "alloy" };
const providers = { ttsModel: () => "tts-1" } as unknown as Providers;

/** The part of R2Bucket the samples use, in memory; `fail` makes one method throw. */
function memoryBucket(fail: "get" | "put" | null = null) {
  const objects = new Map<string, ArrayBuffer>();
  const bucket = {
    objects,
    async get(key: string) {
      if (fail === "get") throw new Error("R2 unavailable");
      const body = objects.get(key);
      return body ? { arrayBuffer: async () => body } : null;
    },
    async put(key: string, body: ArrayBuffer) {
      if (fail === "put") throw new Error("R2 unavailable");
      objects.set(key, body);
    },
    async list({ prefix }: { prefix: string }) {
      return { objects: [...objects.keys()].filter((k) => k.startsWith(prefix)).map((key) => ({ key })), truncated: false };
    },
    async delete(keys: string[]) {
      for (const k of keys) objects.delete(k);
    },
  };
  return bucket;
}

const ctxOf = (bucket: ReturnType<typeof memoryBucket> | undefined, organizationId = ORG) => ({
  organizationId,
  providers,
  samples: bucket as unknown as R2Bucket | undefined,
});

describe("a kept sample's key", () => {
  it("is the workspace's and the voice's, and changes with whatever changes the audio", async () => {
    const key = await sampleKey(ORG, voice, "tts-1");
    expect(key).toMatch(new RegExp(`^voice-samples/${ORG}/${voice.id}/[0-9a-f]{64}\\.wav$`));
    expect(await sampleKey(ORG, { ...voice }, "tts-1")).toBe(key);
    const others = await Promise.all([
      sampleKey(OTHER_ORG, voice, "tts-1"),
      sampleKey(ORG, { ...voice, provider: "openai" }, "tts-1"),
      sampleKey(ORG, { ...voice, providerVoiceId: "echo" }, "tts-1"),
      sampleKey(ORG, voice, "gpt-4o-mini-tts"),
    ]);
    expect(new Set([key, ...others]).size).toBe(5);
  });
});

describe("voiceSample", () => {
  const audio = (bytes: number) => new Uint8Array(bytes).fill(7).buffer;

  it("synthesizes once, then serves what it kept; without a bucket it synthesizes every time", async () => {
    const bucket = memoryBucket();
    const synthesize = vi.fn(async () => audio(1_000));
    const first = await voiceSample({ ctx: ctxOf(bucket), input: { voice, synthesize } });
    const second = await voiceSample({ ctx: ctxOf(bucket), input: { voice, synthesize } });
    expect([first.cached, second.cached]).toEqual([false, true]);
    expect(new Uint8Array(second.audio)).toEqual(new Uint8Array(first.audio));
    expect(synthesize).toHaveBeenCalledTimes(1);
    expect(synthesize).toHaveBeenCalledWith("tts-1");
    // Another workspace: its own sample.
    expect((await voiceSample({ ctx: ctxOf(bucket, OTHER_ORG), input: { voice, synthesize } })).cached).toBe(false);

    const unbound = vi.fn(async () => audio(10));
    await voiceSample({ ctx: ctxOf(undefined), input: { voice, synthesize: unbound } });
    await voiceSample({ ctx: ctxOf(undefined), input: { voice, synthesize: unbound } });
    expect(unbound).toHaveBeenCalledTimes(2);
  });

  it("does not keep a sample over the cap (served all the same)", async () => {
    const bucket = memoryBucket();
    const big = await voiceSample({ ctx: ctxOf(bucket), input: { voice, synthesize: async () => audio(SAMPLE_MAX_BYTES + 1) } });
    expect(big.audio.byteLength).toBe(SAMPLE_MAX_BYTES + 1);
    expect(bucket.objects.size).toBe(0);
  });

  it("plays from the provider when the bucket fails, and logs it", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const fail of ["get", "put"] as const) {
      const played = await voiceSample({ ctx: ctxOf(memoryBucket(fail)), input: { voice, synthesize: async () => audio(8) } });
      expect(played).toMatchObject({ cached: false });
      expect(played.audio.byteLength).toBe(8);
    }
    expect(error.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringContaining("voice sample read failed"),
      expect.stringContaining("voice sample store failed"),
    ]);
    error.mockRestore();
  });

  it("keeps one sample per voice: a new one replaces the stale; an edit drops what no longer matches; a deletion all", async () => {
    const bucket = memoryBucket();
    await voiceSample({ ctx: ctxOf(bucket), input: { voice, synthesize: async () => audio(4) } });
    const edited = { ...voice, providerVoiceId: "echo" };
    await voiceSample({ ctx: ctxOf(bucket), input: { voice: edited, synthesize: async () => audio(5) } });
    expect([...bucket.objects.keys()]).toEqual([await sampleKey(ORG, edited, "tts-1")]);

    // Renamed (the audio's parts unchanged): kept. Another provider voice: dropped.
    await forgetVoiceSamples({ ctx: ctxOf(bucket), input: { voice: edited, deleted: false } });
    expect(bucket.objects.size).toBe(1);
    await forgetVoiceSamples({ ctx: ctxOf(bucket), input: { voice: { ...voice, providerVoiceId: "nova" }, deleted: false } });
    expect(bucket.objects.size).toBe(0);

    await voiceSample({ ctx: ctxOf(bucket), input: { voice, synthesize: async () => audio(4) } });
    await voiceSample({ ctx: ctxOf(bucket, OTHER_ORG), input: { voice, synthesize: async () => audio(4) } });
    await forgetVoiceSamples({ ctx: ctxOf(bucket), input: { voice, deleted: true } });
    // The other workspace's sample of the same (system) voice is its own: untouched.
    expect([...bucket.objects.keys()]).toEqual([await sampleKey(OTHER_ORG, voice, "tts-1")]);
  });
});
