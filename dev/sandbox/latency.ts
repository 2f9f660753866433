// Latency profiles of the provider sandbox: how long it takes to answer, modelled on published
// provider figures (docs/sandbox.md#latency-profiles cites them). `instant` answers as fast as the
// sandbox can (its historical behaviour); `realistic` waits like a hosted provider: time to first
// token and tokens per second for chat, time to first audio byte and real-time factor for speech,
// a finalization delay for transcription; `steady` is `realistic` without its spread, for
// measuring what a platform adds to the provider's time to the millisecond. Chosen per sandbox (SANDBOX_LATENCY, the `latency`
// option), per base URL (`…/latency/<profile>/v1`, so a worker pointed there gets it without a line
// of its own code changing), or per request (`x-sandbox-latency: <profile>`).

export const LATENCY_PROFILES = ["instant", "realistic", "steady"] as const;
export type LatencyProfileName = (typeof LATENCY_PROFILES)[number];

export interface LatencyProfile {
  name: LatencyProfileName;
  /** Chat completions: the first token after `ttftMs`, then `tokensPerSecond`. */
  chat: { ttftMs: number; tokensPerSecond: number } | null;
  /** Speech: the first audio byte after `ttfbMs`; then audio is produced `1 / rtf` times faster than it plays. */
  speech: { openai: { ttfbMs: number; rtf: number }; elevenlabs: { ttfbMs: number; rtf: number } } | null;
  /** Transcription of an uploaded turn: the answer `finalizeMs` after the upload arrived. */
  transcription: { finalizeMs: number } | null;
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
  },
  // A final transcript 200–350 ms after the end of speech (Deepgram streaming, as measured by its users).
  transcription: { finalizeMs: 300 },
  sigma: 0.2,
};

export const PROFILES: Record<LatencyProfileName, LatencyProfile> = {
  instant: { name: "instant", chat: null, speech: null, transcription: null, sigma: 0 },
  realistic: REALISTIC,
  // Every request waits exactly the realistic medians: two runs of the same requests (direct and
  // through the platform) then differ only by what the platform adds.
  steady: { ...REALISTIC, name: "steady", sigma: 0 },
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
