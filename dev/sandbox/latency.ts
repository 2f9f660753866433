// Latency profiles of the provider sandbox: how long it takes to answer, modelled on published
// provider figures (docs/sandbox.md#latency-profiles cites them). `instant` answers as fast as the
// sandbox can (its historical behaviour); `realistic` waits like a hosted provider: time to first
// token and tokens per second for chat, time to first audio byte and real-time factor for speech,
// a finalization delay for transcription; `steady` is `realistic` without its spread, for
// measuring what a platform adds to the provider's time to the millisecond; `fast` waits like the
// fastest published providers (a Groq-class LLM, Cartesia Sonic, Deepgram Flux), with their
// published spread. Chosen per sandbox (SANDBOX_LATENCY, the `latency`
// option), per base URL (`…/latency/<profile>/v1`, so a worker pointed there gets it without a line
// of its own code changing), or per request (`x-sandbox-latency: <profile>`).

export const LATENCY_PROFILES = ["instant", "realistic", "steady", "fast"] as const;
export type LatencyProfileName = (typeof LATENCY_PROFILES)[number];

export interface LatencyProfile {
  name: LatencyProfileName;
  /** Chat completions: the first token after `ttftMs`, then `tokensPerSecond`. */
  chat: { ttftMs: number; tokensPerSecond: number } | null;
  /** Speech: the first audio byte after `ttfbMs`; then audio is produced `1 / rtf` times faster than it plays. */
  speech: {
    openai: { ttfbMs: number; rtf: number };
    elevenlabs: { ttfbMs: number; rtf: number };
    /** Cartesia: the bytes endpoint's first byte, and on the WebSocket each context's first chunk. */
    cartesia: { ttfbMs: number; rtf: number };
  } | null;
  /** Transcription of an uploaded turn: the answer `finalizeMs` after the upload arrived. */
  transcription: { finalizeMs: number } | null;
  /** Embeddings (POST /v1/embeddings): the answer after `baseMs`, plus `perThousandTokensMs` per 1,000 input tokens. */
  embeddings: { baseMs: number; perThousandTokensMs: number } | null;
  /**
   * Streaming transcription (Deepgram's live API, dev/sandbox/deepgram.ts), counted in the stream's
   * audio except `finalizeMs`: Nova's interim results and Flux's Updates every `interimEveryMs` of
   * audio; each Nova message sent `finalizeMs` (wall clock) after the audio that completes it
   * arrived; Flux's end-of-turn confidence for a finished sentence reaching 0.5 (a usual
   * `eager_eot_threshold`) after `eagerEotMs` of silence and 0.7 (the default `eot_threshold`)
   * after `eotMs`. Never null: a stream cannot end a turn before some silence is heard.
   */
  transcriptionStream: { interimEveryMs: number; finalizeMs: number; eotMs: number; eagerEotMs: number };
  /** Spread of every delay: each is multiplied by exp(σ·N(0,1)), clamped to [0.6, 2]. */
  sigma: number;
}

const REALISTIC: LatencyProfile = {
  name: "realistic",
  // gpt-4o-mini: about 0.4 s to the first token, about 60 output tokens per second.
  chat: { ttftMs: 400, tokensPerSecond: 60 },
  speech: {
    // OpenAI's speech endpoint streams chunked audio, its first audio later than ElevenLabs'.
    openai: { ttfbMs: 300, rtf: 0.25 },
    // ElevenLabs' Flash / Turbo models: 75 ms of inference (Flash) to ~300 ms (Turbo v2.5), plus the network.
    elevenlabs: { ttfbMs: 200, rtf: 0.2 },
    // Cartesia Sonic: "90ms model latency" as Cartesia publishes it, network excluded (docs/sandbox.md).
    cartesia: { ttfbMs: 90, rtf: 0.2 },
  },
  // A final transcript 200–350 ms after the end of speech (Deepgram streaming, as measured by its users).
  transcription: { finalizeMs: 300 },
  // OpenAI text-embedding-3-small: about 150 ms for a short query from a nearby region, a batch
  // of 64 passages (~20,000 tokens) in about a second.
  embeddings: { baseMs: 150, perThousandTokensMs: 40 },
  // Flux: "~260 ms end-of-turn detection", Updates every ~0.25 s of audio; eager end of turn about
  // 150 ms sooner (Telnyx's median saving). Nova: each result 250 ms behind its audio, so a final
  // comes 200–350 ms after the end of speech at Deepgram's default endpointing (10 ms).
  transcriptionStream: { interimEveryMs: 250, finalizeMs: 250, eotMs: 260, eagerEotMs: 110 },
  sigma: 0.2,
};

/**
 * The fastest published providers (docs/sandbox.md#latency-profiles cites each figure): a Groq-class
 * LLM, ElevenLabs Flash and Cartesia Sonic at their model latency (network excluded), Deepgram Flux.
 */
const FAST: LatencyProfile = {
  name: "fast",
  // Groq, Llama 3.x: ~160 ms to the first token (157 ms warm p50 for Llama 3.1 8B, 163 ms for
  // Llama 3.3 70B in one published comparison; 120 ms median for 3.3 70B in another), 330 tokens/s
  // (Llama 3.3 70B, the slower of the two; 8B runs at 750+).
  chat: { ttftMs: 160, tokensPerSecond: 330 },
  speech: {
    // OpenAI's speech endpoint has no faster tier: as on `realistic`.
    openai: { ttfbMs: 300, rtf: 0.25 },
    // ElevenLabs Flash v2.5: "~75ms" of model inference, network excluded.
    elevenlabs: { ttfbMs: 75, rtf: 0.2 },
    // Cartesia Sonic: "90ms model latency", network excluded.
    cartesia: { ttfbMs: 90, rtf: 0.2 },
  },
  // No faster published finalization for an uploaded turn than `realistic`'s.
  transcription: { finalizeMs: 300 },
  // No faster embeddings tier published than `realistic`'s provider.
  embeddings: { baseMs: 150, perThousandTokensMs: 40 },
  // Deepgram Flux: "~260 ms end-of-turn detection" (the same provider as `realistic`'s stream).
  transcriptionStream: { interimEveryMs: 250, finalizeMs: 250, eotMs: 260, eagerEotMs: 110 },
  // The one published p95 of this chain's fast providers: Groq's time to first token, 280 ms p95
  // against 120 ms p50 (ln(280 / 120) / 1.645 = 0.51), so a delay's p95 is about 2× its median
  // (the clamp's ceiling). Not `realistic`'s 0.2: the fast hosts publish a wider tail.
  sigma: 0.5,
};

export const PROFILES: Record<LatencyProfileName, LatencyProfile> = {
  instant: {
    name: "instant",
    chat: null,
    speech: null,
    transcription: null,
    embeddings: null,
    // As soon as the stream can tell: a result every 100 ms of audio, no delay, a finished sentence's
    // turn over after 100 ms of silence (eager at 60 ms): longer than the gaps between its words.
    transcriptionStream: { interimEveryMs: 100, finalizeMs: 0, eotMs: 100, eagerEotMs: 60 },
    sigma: 0,
  },
  realistic: REALISTIC,
  // Every request waits exactly the realistic medians: two runs of the same requests (direct and
  // through the platform) then differ only by what the platform adds.
  steady: { ...REALISTIC, name: "steady", sigma: 0 },
  fast: FAST,
};

export const LATENCY_HEADER = "x-sandbox-latency";
const PATH_PREFIX = /^\/latency\/([a-z]+)(\/.*)$/;

export function parseProfileName(value: string | undefined | null): LatencyProfileName | null {
  if (!value) return null;
  return (LATENCY_PROFILES as readonly string[]).includes(value) ? (value as LatencyProfileName) : null;
}

/** `/latency/realistic/v1/…` → the profile and the path without the prefix; other paths are unchanged. */
export function splitProfilePath(path: string): { profile: string | null; path: string } {
  const m = PATH_PREFIX.exec(path);
  return m?.[1] && m[2] ? { profile: m[1], path: m[2] } : { profile: null, path };
}

/**
 * The sandbox's base URL for a profile: `http://h:p/v1` → `http://h:p/latency/realistic/v1`, and
 * ElevenLabs' `http://h:p` → `http://h:p/latency/realistic`.
 */
export function withLatencyProfile(baseUrl: string, profile: LatencyProfileName): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/$/, "");
  url.pathname = path.endsWith("/v1") ? `${path.slice(0, -3)}/latency/${profile}/v1` : `${path}/latency/${profile}`;
  return url.toString().replace(/\/$/, "");
}

/** A standard normal sample (Box–Muller). */
function normal(random: () => number): number {
  const u = Math.max(Number.EPSILON, random());
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** `ms` spread by the profile's σ (log-normal, clamped), so percentiles above the median exist as they do at a provider. */
export function jittered(ms: number, sigma: number, random: () => number = Math.random): number {
  if (sigma <= 0 || ms <= 0) return ms;
  return ms * Math.min(2, Math.max(0.6, Math.exp(sigma * normal(random))));
}
