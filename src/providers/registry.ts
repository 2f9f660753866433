// Which adapter serves a request: configuration, not code. Chat and transcription go to the
// OpenAI-compatible provider; speech goes to the adapter of the voice's provider.
import type { AppConfig } from "../env";
import { ApiError } from "../lib/errors";
import { ElevenLabs } from "./elevenlabs";
import type { CallOptions } from "./http";
import { OpenAICompatible } from "./openai";
import type { ChatProvider, SttProvider, TtsProvider } from "./types";

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

/** Voice providers with an adapter. `sandbox` voices are served by the OpenAI-compatible sandbox. */
export const TTS_PROVIDERS = ["openai", "sandbox", "elevenlabs"] as const;

/** The voice providers this deployment can synthesize now: an adapter, and its credentials. */
export function synthesizableProviders(config: AppConfig): string[] {
  return TTS_PROVIDERS.filter((p) => (p === "elevenlabs" ? Boolean(config.ELEVENLABS_API_KEY) : Boolean(config.OPENAI_API_KEY)));
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
  throw new ApiError(
    "validation_failed",
    `Voices of provider "${voiceProvider}" cannot be synthesized yet; use a voice of ${TTS_PROVIDERS.join(", ")}.`,
  );
}
