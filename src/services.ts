// The per-request dependencies every surface hands to the services, built once by one factory:
// by the init middleware for a request (`c.var.services`) and by the worker's scheduled handler
// for a cron run (unkey's pkg/middleware/init.ts pattern). Nothing here opens a connection.
import type { Scope } from "./db/scope";
import type { AppConfig } from "./env";
import { chatProvider, sttProvider, synthesizableProviders, ttsProvider } from "./providers/registry";
import type { ChatProvider, SttProvider, TtsProvider } from "./providers/types";
import { telephonyProvider } from "./telephony/registry";
import type { TelephonyProvider } from "./telephony/types";
import type { WebhookDeps } from "./webhooks/deliver";
import { publicOrigin } from "./webhooks/endpoints";

export interface Services {
  /** The webhook engine's dependencies: the scope's database and deferred work, the configuration, the origin. */
  webhooks: WebhookDeps;
  /** The origin of URLs we show (the test receiver's, recordings): PUBLIC_BASE_URL, else the request's. */
  publicOrigin: string;
  /**
   * The model providers of this deployment (src/providers/registry.ts), made when asked for: one
   * without credentials throws 503 provider_not_configured then, not when the request starts.
   */
  providers: {
    chat(): ChatProvider;
    stt(): SttProvider;
    /** The adapter of a voice's provider (`openai`, `sandbox`, `elevenlabs`). */
    tts(voiceProvider: string): TtsProvider;
    /** The voice providers this deployment can synthesize now. */
    synthesizable(): string[];
  };
  /** The carrier (Twilio, or its sandbox); 503 telephony_unavailable when not configured. */
  telephony(): TelephonyProvider;
}

/** `origin` is the request's (`https://host`), or none for a cron run (PUBLIC_BASE_URL then). */
export function buildServices(scope: Scope, config: AppConfig, origin: string | undefined): Services {
  return {
    webhooks: {
      db: scope.db,
      config,
      // Deferred in the scope, so direct-mode deliveries finish after the response.
      waitUntil: (p) => scope.defer(p),
      origin: origin ?? config.PUBLIC_BASE_URL,
    },
    publicOrigin: publicOrigin(config, origin),
    providers: {
      chat: () => chatProvider(config),
      stt: () => sttProvider(config),
      tts: (voiceProvider) => ttsProvider(config, voiceProvider),
      synthesizable: () => synthesizableProviders(config),
    },
    telephony: () => telephonyProvider(config),
  };
}
