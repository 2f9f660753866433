// Which adapter serves a request: configuration, not code. Chat and transcription go to the
// OpenAI-compatible provider; speech goes to the adapter of the voice's provider.
import type { AppConfig } from "../env";
import { ApiError } from "../lib/errors";
import { CARTESIA_DEFAULT_MODEL, Cartesia } from "./cartesia";
import { Deepgram } from "./deepgram";
import { ElevenLabs } from "./elevenlabs";
import type { CallOptions } from "./http";
import { OpenAICompatible } from "./openai";
import type { ChatProvider, EmbeddingProvider, StreamingSttProvider, SttProvider, TtsProvider } from "./types";
import { type WorkersAi, workersAiConnect } from "./workers-ai";

const callOptions = (config: AppConfig): CallOptions => ({ timeoutMs: config.PROVIDER_TIMEOUT_MS, retries: config.PROVIDER_RETRIES });

// A provider this deployment has no credentials for is 503 provider_not_configured (the
// deployment cannot serve it, now or on retry), never 502 provider_error (the provider failed).
function openAI(config: AppConfig): OpenAICompatible {
  if (!config.OPENAI_API_KEY) {
    throw new ApiError(
      "provider_not_configured",
      "No model provider is configured on this deployment (OPENAI_API_KEY). Nothing was charged.",
    );
  }
  return new OpenAICompatible(config.OPENAI_BASE_URL, config.OPENAI_API_KEY, callOptions(config));
}

export const chatProvider = (config: AppConfig): ChatProvider => openAI(config);
export const sttProvider = (config: AppConfig): SttProvider => openAI(config);
export const embeddingProvider = (config: AppConfig): EmbeddingProvider => openAI(config);

/**
 * Streaming transcription (a call's caller, as they speak): the Deepgram adapter, its socket opened
 * as STREAMING_STT_PROVIDER says: `deepgram`, Deepgram's API when DEEPGRAM_API_KEY is set;
 * `workers-ai`, the Workers AI binding `ai` (`env.AI`) when the worker has it. Else null, and the
 * caller transcribes each turn with `sttProvider` instead. Either way usage is metered as
 * Deepgram's (provider `deepgram`, the STREAMING_STT_MODEL): docs/calls.md, "Streaming transcription".
 */
export function streamingSttProvider(config: AppConfig, ai?: WorkersAi): StreamingSttProvider | null {
  const timeoutMs = config.PROVIDER_TIMEOUT_MS;
  if (config.STREAMING_STT_PROVIDER === "workers-ai") {
    // The binding is the account's credential: no Deepgram key travels.
    return ai ? new Deepgram(config.DEEPGRAM_BASE_URL, "", { connect: workersAiConnect(ai), timeoutMs }) : null;
  }
  if (!config.DEEPGRAM_API_KEY) return null;
  return new Deepgram(config.DEEPGRAM_BASE_URL, config.DEEPGRAM_API_KEY, { timeoutMs });
}

/** What streaming transcription needs on this deployment (the error of CALL_TRANSCRIPTION=streaming without it). */
export const streamingSttRequirement = (config: AppConfig): string =>
  config.STREAMING_STT_PROVIDER === "workers-ai"
    ? 'the Workers AI binding for STREAMING_STT_PROVIDER=workers-ai: [ai] binding = "AI" in wrangler.toml'
    : "DEEPGRAM_API_KEY";

/** Voice providers with an adapter. `sandbox` voices are served by the OpenAI-compatible sandbox. */
export const TTS_PROVIDERS = ["openai", "sandbox", "elevenlabs", "cartesia"] as const;

/** The voice providers this deployment can synthesize now: an adapter, and its credentials. */
export function synthesizableProviders(config: AppConfig): string[] {
  const keys: Record<(typeof TTS_PROVIDERS)[number], string | undefined> = {
    openai: config.OPENAI_API_KEY,
    sandbox: config.OPENAI_API_KEY,
    elevenlabs: config.ELEVENLABS_API_KEY,
    cartesia: config.CARTESIA_API_KEY,
  };
  return TTS_PROVIDERS.filter((p) => Boolean(keys[p]));
}

/** The model a voice of this provider speaks with when the request names none. */
export function defaultTtsModel(config: AppConfig, voiceProvider: string): string {
  if (voiceProvider === "elevenlabs") return "eleven_multilingual_v2";
  if (voiceProvider === "cartesia") return CARTESIA_DEFAULT_MODEL;
  return config.DEFAULT_TTS_MODEL;
}

export function ttsProvider(config: AppConfig, voiceProvider: string): TtsProvider {
  if (voiceProvider === "openai" || voiceProvider === "sandbox") return openAI(config);
  if (voiceProvider === "elevenlabs") {
    if (!config.ELEVENLABS_API_KEY)
      throw new ApiError(
        "provider_not_configured",
        "ElevenLabs is not configured on this deployment (ELEVENLABS_API_KEY), so its voices cannot be synthesized here (GET /v1/voices lists them with available: false). Nothing was charged.",
      );
    return new ElevenLabs(config.ELEVENLABS_BASE_URL, config.ELEVENLABS_API_KEY, callOptions(config));
  }
  if (voiceProvider === "cartesia") {
    if (!config.CARTESIA_API_KEY)
      throw new ApiError(
        "provider_not_configured",
        "Cartesia is not configured on this deployment (CARTESIA_API_KEY), so its voices cannot be synthesized here (GET /v1/voices lists them with available: false). Nothing was charged.",
      );
    return new Cartesia(config.CARTESIA_BASE_URL, config.CARTESIA_API_KEY, callOptions(config));
  }
  throw new ApiError(
    "validation_failed",
    `Voices of provider "${voiceProvider}" cannot be synthesized yet; use a voice of ${TTS_PROVIDERS.join(", ")}.`,
  );
}

/**
 * The providers of one deployment, as a request, a call or a cron run reaches them: only through
 * its context (src/services.ts builds it; docs/architecture.md). Each adapter is made when asked
 * for, so one without credentials fails (503 provider_not_configured) then, not when the context is made.
 */
export interface Providers {
  chat(): ChatProvider;
  stt(): SttProvider;
  /** Knowledge bases' embeddings (the OpenAI-compatible provider's /embeddings). */
  embeddings(): EmbeddingProvider;
  /** Null when this deployment does not stream (see streamingSttProvider); `ai` is the Workers AI binding. */
  streamingStt(ai?: WorkersAi): StreamingSttProvider | null;
  streamingSttRequirement(): string;
  /** The adapter of a voice's provider (`openai`, `sandbox`, `elevenlabs`, `cartesia`). */
  tts(voiceProvider: string): TtsProvider;
  /** The model a voice of this provider speaks with when nothing names one. */
  ttsModel(voiceProvider: string): string;
  /** The voice providers this deployment can synthesize now. */
  synthesizable(): string[];
}

export const providersOf = (config: AppConfig): Providers => ({
  chat: () => chatProvider(config),
  stt: () => sttProvider(config),
  embeddings: () => embeddingProvider(config),
  streamingStt: (ai) => streamingSttProvider(config, ai),
  streamingSttRequirement: () => streamingSttRequirement(config),
  tts: (voiceProvider) => ttsProvider(config, voiceProvider),
  ttsModel: (voiceProvider) => defaultTtsModel(config, voiceProvider),
  synthesizable: () => synthesizableProviders(config),
});
