// The worker's configuration, parsed with zod once per isolate at the edge of the worker.
// A bad configuration is a clear error naming the variables, never echoing their values.
import { z } from "zod";
import { ApiError } from "./lib/errors";
import { DEFAULT_SERVICE_NAME, parseOtlpHeaders } from "./lib/otlp";
import { Keyring } from "./lib/secrets";
import { WORKERS_AI_STT_MODELS } from "./providers/workers-ai";

const DURATION = /^(\d+)\s?(ms|s|m|h|d)$/;
const UNIT_SECONDS = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 } as const;

/** Whole seconds of a duration such as "60 s" (at least 1). */
export function durationSeconds(value: string): number {
  const m = DURATION.exec(value);
  if (!m) throw new Error(`not a duration: ${value}`);
  return Math.max(1, Math.ceil(Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS]));
}

const duration = z
  .string()
  .regex(DURATION, 'a duration such as "60 s", "10 m" or "1 h"')
  .transform((s) => s as `${number} ${"ms" | "s" | "m" | "h" | "d"}` | `${number}${"ms" | "s" | "m" | "h" | "d"}`);

export const envSchema = z
  .object({
    /** Postgres connection string: Neon in production; the local stack's database otherwise. */
    DATABASE_URL: z.string().url(),
    /** Local stack only: host:port of the WebSocket-to-TCP proxy standing in for Neon's. */
    DATABASE_WS_PROXY: z.string().optional(),
    /** Local stack only: URL of the SQL-over-HTTP endpoint standing in for Neon's (neonConfig.fetchEndpoint). */
    DATABASE_HTTP_ENDPOINT: z.string().url().optional(),
    UPSTASH_REDIS_REST_URL: z.string().url(),
    UPSTASH_REDIS_REST_TOKEN: z.string().min(1),
    /** Requests allowed per key (or per user+organization for sessions) in each window. */
    RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(600),
    RATE_LIMIT_WINDOW: duration.default("60 s"),
    /** Sign-in attempts allowed per 15 minutes, per email and per client address. */
    SIGN_IN_LIMIT_PER_EMAIL: z.coerce.number().int().positive().default(10),
    SIGN_IN_LIMIT_PER_ADDRESS: z.coerce.number().int().positive().default(100),
    /** Dashboard session lifetime. */
    SESSION_TTL_HOURS: z.coerce
      .number()
      .positive()
      .default(24 * 7),

    /** The worker's public origin (https://api.example.com): QStash calls back here. */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** Local development only: lets webhooks reach http:// and private addresses (localhost receivers). */
    WEBHOOKS_ALLOW_PRIVATE_URLS: z
      .enum(["0", "1", "true", "false"])
      .default("0")
      .transform((v) => v === "1" || v === "true"),
    /**
     * Key-encryption keys for the secrets we store readable (webhook signing secrets), a worker
     * secret: `<kid>:<base64 of 32 bytes>[,<kid>:<key>…]`; the first seals, all open (docs/secrets.md).
     */
    SECRETS_KEK: z.string().transform((spec, ctx) => {
      try {
        return new Keyring(spec);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    }),
    /** DNS-over-HTTPS JSON endpoint used to check receiver addresses when they are saved and before each delivery. */
    DNS_RESOLVER_URL: z.string().url().default("https://cloudflare-dns.com/dns-query"),
    /** Receiver timeout per attempt. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1000).max(30000).default(10000),
    /** Retries after the first attempt (QStash mode); direct mode makes a single attempt. */
    WEBHOOK_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(5),
    /** Final delivery failures in a row after which an endpoint is turned off (svix's endpoint_failure_disable_after). */
    WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(1).max(10_000).default(20),
    /** QStash: set QSTASH_TOKEN to deliver through QStash (production); unset means direct mode. */
    QSTASH_TOKEN: z.string().min(1).optional(),
    QSTASH_URL: z.string().url().default("https://qstash.upstash.io"),
    QSTASH_CURRENT_SIGNING_KEY: z.string().min(1).optional(),
    QSTASH_NEXT_SIGNING_KEY: z.string().min(1).optional(),

    /** Models API: an OpenAI-compatible provider (OpenAI, Groq, Together, vLLM, Ollama, the local sandbox). */
    OPENAI_BASE_URL: z.string().url().default("https://api.openai.com/v1"),
    OPENAI_API_KEY: z.string().min(1).optional(),
    /** ElevenLabs, for voices whose provider is `elevenlabs`. */
    ELEVENLABS_BASE_URL: z.string().url().default("https://api.elevenlabs.io"),
    ELEVENLABS_API_KEY: z.string().min(1).optional(),
    /** Cartesia (Sonic), for voices whose provider is `cartesia`. */
    CARTESIA_BASE_URL: z.string().url().default("https://api.cartesia.ai"),
    CARTESIA_API_KEY: z.string().min(1).optional(),
    /** Deepgram, for streaming transcription (live `/v1/listen` for Nova, `/v2/listen` for Flux). Unset: none. */
    DEEPGRAM_BASE_URL: z.string().url().default("https://api.deepgram.com"),
    DEEPGRAM_API_KEY: z.string().min(1).optional(),
    PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120000).default(30000),
    PROVIDER_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
    DEFAULT_CHAT_MODEL: z.string().min(1).default("gpt-4o-mini"),
    DEFAULT_TTS_MODEL: z.string().min(1).default("tts-1"),
    DEFAULT_STT_MODEL: z.string().min(1).default("whisper-1"),
    /** Knowledge bases' embeddings (docs/knowledge.md); asked for EMBEDDING_DIMENSIONS (512) numbers each. */
    EMBEDDING_MODEL: z.string().min(1).default("text-embedding-3-small"),
    /** A workspace's knowledge limits (docs/knowledge.md, "Limits"): documents, bytes of originals, passages, and bytes a document. */
    KNOWLEDGE_MAX_DOCUMENTS: z.coerce.number().int().positive().default(1_000),
    KNOWLEDGE_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(500 * 1024 * 1024),
    KNOWLEDGE_MAX_CHUNKS: z.coerce.number().int().positive().default(100_000),
    KNOWLEDGE_MAX_FILE_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .max(25 * 1024 * 1024)
      .default(20 * 1024 * 1024),
    /** How long importing a URL may take, redirects included. */
    KNOWLEDGE_URL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),

    /** Telephony: Twilio (or the local telephony sandbox, which speaks its API). Unset: phone calls are refused with 503. */
    TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
    TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
    TWILIO_API_BASE_URL: z.string().url().default("https://api.twilio.com"),
    /** Caller ids every workspace may use (comma-separated E.164); workspaces add their own under /v1/phone-numbers. */
    TWILIO_FROM_NUMBERS: z
      .string()
      .default("")
      .transform((s) =>
        s
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^\+[1-9]\d{6,14}$/, "each number must be E.164, e.g. +15005550006"))),
    /** Seconds a phone call may ring before it counts as not answered. */
    CALL_RING_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(120).default(30),
    /** Lifetime of a web call's one-time session token. */
    WEB_CALL_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(120),
    /** Slack the watchdog allows past a call's own limits before it ends the call (docs/calls.md). */
    CALL_WATCHDOG_GRACE_SECONDS: z.coerce.number().int().min(5).max(3600).default(60),
    /** Milliseconds of silence after speech that end the caller's turn. */
    CALL_ENDPOINTING_MS: z.coerce.number().int().min(100).max(3000).default(500),
    /**
     * Turn-taking (docs/calls.md): `on` transcribes the caller's turn speculatively on a pause of
     * CALL_PAUSE_MS and ends the turn early when that transcript ends a sentence; `off` waits out
     * CALL_ENDPOINTING_MS, then transcribes (kept so the bench measures both).
     */
    CALL_SPECULATION: z.enum(["on", "off"]).default("on"),
    /** Milliseconds of silence inside the caller's turn that start a speculative transcription. */
    CALL_PAUSE_MS: z.coerce.number().int().min(60).max(2000).default(200),
    /**
     * The voice loop (docs/calls.md): `streaming` (LLM tokens → sentences → streamed speech) or
     * `serial` (the whole transcription, then the whole reply, then its whole audio), kept so the
     * bench measures both with the same code.
     */
    CALL_PIPELINE: z.enum(["streaming", "serial"]).default("streaming"),
    /**
     * How a call hears the caller (docs/calls.md, "Streaming transcription"): `streaming` sends the
     * audio to the streaming provider as it arrives and its turn model ends the turn; `batch`
     * uploads each turn after the endpointing silence; `auto` streams when a streaming provider
     * (DEEPGRAM_API_KEY) is configured.
     */
    CALL_TRANSCRIPTION: z.enum(["auto", "streaming", "batch"]).default("auto"),
    /** The streaming model: Flux (`flux-general-en`, its own end-of-turn model) or Nova (`nova-3`, endpointing). */
    STREAMING_STT_MODEL: z.string().min(1).default("flux-general-en"),
    /**
     * Who serves the streaming model: `deepgram` (Deepgram's API with DEEPGRAM_API_KEY) or `workers-ai`
     * (the same models through the Workers AI binding `AI`, no Deepgram key: src/providers/workers-ai.ts).
     */
    STREAMING_STT_PROVIDER: z.enum(["deepgram", "workers-ai"]).default("deepgram"),
    /** While the agent speaks, sound without a recognized word interrupts it only after this long (a cough, "mhm" do not). */
    CALL_MIN_INTERRUPTION_MS: z.coerce.number().int().min(0).max(5000).default(700),

    /** Messaging channels (docs/messaging.md): Telegram's Bot API, and Meta's Graph API for WhatsApp (the local sandboxes in development, docs/sandbox.md). */
    TELEGRAM_API_BASE_URL: z.string().url().default("https://api.telegram.org"),
    WHATSAPP_API_BASE_URL: z.string().url().default("https://graph.facebook.com"),
    /** The Graph API version the WhatsApp calls name (v26.0 is current since 29 July 2026). */
    WHATSAPP_GRAPH_VERSION: z
      .string()
      .regex(/^v\d{1,2}\.\d$/, 'a Graph API version such as "v26.0"')
      .default("v26.0"),

    /** The embeddable widget (docs/widget.md): where widget.js is served from, for the embed code; unset: this worker's origin. */
    WIDGET_CDN_URL: z.string().url().optional(),
    /** A widget chat with no message for this long is ended by the cron sweep (widget.completed). */
    WIDGET_SESSION_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(86_400).default(1800),
    /** Widget requests per window: per visitor id, per client address, and per widget (chat and voice starts). */
    WIDGET_RATE_LIMIT_VISITOR: z.coerce.number().int().positive().default(20),
    WIDGET_RATE_LIMIT_ADDRESS: z.coerce.number().int().positive().default(120),
    WIDGET_RATE_LIMIT_WIDGET: z.coerce.number().int().positive().default(600),
    WIDGET_RATE_LIMIT_WINDOW: duration.default("60 s"),

    /** OpenTelemetry (docs/calls.md, "Tracing"): each call exported as a trace, OTLP/HTTP JSON to `{endpoint}/v1/traces`. Unset: no tracing. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
    /** Headers sent with each export, `k=v,k2=v2` (percent-encoded values), e.g. the collector's API key (secret). */
    OTEL_EXPORTER_OTLP_HEADERS: z
      .string()
      .default("")
      .transform((spec, ctx) => {
        try {
          return parseOtlpHeaders(spec);
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /** The traces' `service.name`. */
    OTEL_SERVICE_NAME: z.string().min(1).default(DEFAULT_SERVICE_NAME),
  })
  .superRefine((env, ctx) => {
    if (env.QSTASH_TOKEN) {
      for (const name of ["QSTASH_CURRENT_SIGNING_KEY", "QSTASH_NEXT_SIGNING_KEY", "PUBLIC_BASE_URL"] as const) {
        if (!env[name]) ctx.addIssue({ code: "custom", path: [name], message: "required with QSTASH_TOKEN" });
      }
    }
    if (env.STREAMING_STT_PROVIDER === "workers-ai" && !WORKERS_AI_STT_MODELS.includes(env.STREAMING_STT_MODEL)) {
      const message = `Workers AI serves ${WORKERS_AI_STT_MODELS.join(" and ")}`;
      ctx.addIssue({ code: "custom", path: ["STREAMING_STT_MODEL"], message });
    }
  });

export type AppConfig = z.infer<typeof envSchema>;

/** Cloudflare bindings as wrangler passes them (vars and secrets are strings), plus the Durable Object, bucket and Workers AI. */
export type Bindings = Partial<Record<keyof z.input<typeof envSchema>, string>> & {
  CALL_SESSIONS?: DurableObjectNamespace;
  /** One Durable Object per campaign: its runner's alarm (src/campaigns/runner/). */
  CAMPAIGN_RUNNERS?: DurableObjectNamespace;
  /** One Durable Object per batch of agent test runs: plays them in its alarm (src/agent-tests/runner/). */
  TEST_RUNNERS?: DurableObjectNamespace;
  RECORDINGS?: R2Bucket;
  /** Knowledge bases' original documents (docs/knowledge.md). */
  KNOWLEDGE?: R2Bucket;
  /** Workers AI (`[ai] binding = "AI"`), for STREAMING_STT_PROVIDER=workers-ai; not bound locally (no simulation of it). */
  AI?: Ai;
};

const cache = new WeakMap<object, AppConfig>();

export function parseEnv(env: Bindings): AppConfig {
  const hit = cache.get(env);
  if (hit) return hit;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))].join(", ");
    throw new ApiError("misconfigured", `The deployment's configuration is invalid: check ${names}.`);
  }
  cache.set(env, parsed.data);
  return parsed.data;
}
