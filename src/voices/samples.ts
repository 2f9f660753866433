// A voice's sample (VOICE_SAMPLE_TEXT, played from the dashboard), kept once synthesized so that
// playing it again costs nothing and answers at once (docs/voices.md, "Samples").
// - Where: the R2 bucket bound as RECORDINGS (wrangler.toml; wrangler dev keeps a local one), under
//   `voice-samples/`: binary, durable and the same from every location (the Cache API is per data
//   centre and cannot be purged everywhere; Redis would hold base64 in memory). Unbound: no cache,
//   every play is synthesized and metered.
// - The key: the workspace (so another workspace never reads it, system voices included), the voice,
//   and a SHA-256 of everything that makes the audio: provider, provider voice id, TTS model, format,
//   text. An edited voice (or a new TTS model) names another object, so a stale sample is never
//   served; the old one is deleted when the voice changes or a new one is stored (one per voice and
//   workspace), and all of them when the voice is deleted.
// - Samples over SAMPLE_MAX_BYTES are served but not kept. A store that fails is logged, never the
//   play's failure.
import type { Voice } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import type { Ctx } from "../services";
import { VOICE_SAMPLE_TEXT } from "./schema";

export const SAMPLE_FORMAT = "wav" as const;
/** A sample of the fixed sentence is about 150 KB of WAV; anything past this is not kept. */
export const SAMPLE_MAX_BYTES = 2 * 1024 * 1024;

/** Where samples are kept: the bucket, when the deployment binds one. */
export interface SampleStore {
  samples?: R2Bucket;
}

type SampleVoice = Pick<Voice, "id" | "provider" | "providerVoiceId">;

const prefixOf = (organizationId: string, voiceId: string) => `voice-samples/${organizationId}/${voiceId}/`;

/** The object of this workspace's sample of `voice` as `model` speaks it. */
export async function sampleKey(organizationId: string, voice: SampleVoice, model: string): Promise<string> {
  const audioMadeOf = JSON.stringify([voice.provider, voice.providerVoiceId, model, SAMPLE_FORMAT, VOICE_SAMPLE_TEXT]);
  return `${prefixOf(organizationId, voice.id)}${await sha256Hex(audioMadeOf)}.wav`;
}

const logFailure = (what: string, voiceId: string, err: unknown) =>
  console.error(JSON.stringify({ level: "error", msg: `voice sample ${what} failed`, voiceId, error: String(err) }));

type SampleCtx = Ctx<"organizationId" | "providers"> & SampleStore;

/**
 * The voice's sample: the kept one, else `synthesize(model)` (the caller meters it: the first play
 * is charged like any text to speech), kept before it is answered so the next play finds it.
 */
export async function voiceSample({
  ctx,
  input: { voice, synthesize },
}: {
  ctx: SampleCtx;
  input: { voice: SampleVoice; synthesize: (model: string) => Promise<ArrayBuffer> };
}): Promise<{ audio: ArrayBuffer; cached: boolean }> {
  const model = ctx.providers.ttsModel(voice.provider);
  const key = await sampleKey(ctx.organizationId, voice, model);
  const bucket = ctx.samples;
  if (bucket) {
    try {
      const kept = await bucket.get(key);
      if (kept) return { audio: await kept.arrayBuffer(), cached: true };
    } catch (err) {
      logFailure("read", voice.id, err); // played from the provider instead
    }
  }
  const audio = await synthesize(model);
  if (bucket && audio.byteLength <= SAMPLE_MAX_BYTES) {
    try {
      await bucket.put(key, audio, { httpMetadata: { contentType: "audio/wav" } });
      // Awaited, as every write here: a cleanup left running could meet the next store.
      await prune(bucket, prefixOf(ctx.organizationId, voice.id), key);
    } catch (err) {
      logFailure("store", voice.id, err);
    }
  }
  return { audio, cached: false };
}

/** Deletes the voice's samples under `prefix` but `keep` (a failure is logged: a stale object is never served, its key no longer matches). */
async function prune(bucket: R2Bucket, prefix: string, keep: string | null): Promise<void> {
  try {
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, cursor });
      const stale = page.objects.map((o) => o.key).filter((k) => k !== keep);
      if (stale.length > 0) await bucket.delete(stale);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
  } catch (err) {
    logFailure("cleanup", prefix, err);
  }
}

/**
 * After the voice changed (`voice`, as it is now) or was deleted (`deleted`): its samples that no
 * longer match it are deleted before the change is answered. A sample that still matches (a
 * renamed voice) is kept.
 */
export async function forgetVoiceSamples({
  ctx,
  input,
}: {
  ctx: SampleCtx;
  input: { voice: SampleVoice; deleted: boolean };
}): Promise<void> {
  const bucket = ctx.samples;
  if (!bucket) return;
  const keep = input.deleted ? null : await sampleKey(ctx.organizationId, input.voice, ctx.providers.ttsModel(input.voice.provider));
  await prune(bucket, prefixOf(ctx.organizationId, input.voice.id), keep);
}
