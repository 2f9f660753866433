// Prices in one table, in micro-credits (1 credit = 1,000,000 micro-credits).
// chat: per 1,000 tokens (prompt + completion); tts: per 1,000 characters; stt: per minute of audio;
// embedding: per 1,000 input tokens.
// A credit is one US dollar of the provider's list price: OpenAI's tts-1-hd at $30 per million
// characters is 30,000 here, whisper-1 at $0.006 a minute 6,000 (the default), gpt-4o at $10 per
// million output tokens 10,000. Pay-as-you-go rates, without volume commitments:
// - Cartesia (sonic-*): about 1 Cartesia credit per character (docs.cartesia.ai/pricing), and its Pro
//   plan sells 100,000 credits for $5 (cartesia.ai/pricing): $0.05 per 1,000 characters, 50,000.
// - Deepgram streaming transcription, pay as you go (deepgram.com/pricing; read from third-party
//   captures): Nova-3 monolingual $0.0048 a minute, 4,800 (hail-hq/hail costs/stt.json, May 2026);
//   Flux English $0.0065, 6,500 (llmreference.com's Deepgram Flux page; $0.39 an audio hour), and
//   Flux multilingual $0.0078, 7,800 (docs.flexprice.io's Deepgram teardown, Nov. 2026).
// - The same models through the Workers AI binding (STREAMING_STT_PROVIDER=workers-ai), billed by
//   Cloudflare: @cf/deepgram/flux $0.0077 a minute over a WebSocket, 7,700
//   (developers.cloudflare.com/workers-ai/models/flux); @cf/deepgram/nova-3 $0.0092, 9,200
//   (cloudflare-docs PR #24748, its model page's unit pricing).
export type Modality = "chat" | "tts" | "stt" | "embedding";

/** Every modality, in the order the usage report lists them. */
export const MODALITIES = ["chat", "tts", "stt", "embedding"] as const satisfies readonly Modality[];

export const PRICES: Record<Modality, { unit: string; default: number; models: Record<string, number> }> = {
  chat: { unit: "1,000 tokens", default: 2_000, models: { "gpt-4o": 10_000, "gpt-4.1": 8_000, "gpt-4o-mini": 600, "gpt-4.1-mini": 1_600 } },
  tts: {
    unit: "1,000 characters",
    default: 15_000,
    models: { "tts-1-hd": 30_000, eleven_multilingual_v2: 30_000, "sonic-3": 50_000, "sonic-2": 50_000 },
  },
  // OpenAI's text-embedding-3-small at $0.02 per million tokens, -3-large at $0.13.
  embedding: { unit: "1,000 tokens", default: 20, models: { "text-embedding-3-small": 20, "text-embedding-3-large": 130 } },
  stt: {
    unit: "minute of audio",
    default: 6_000,
    models: {
      "nova-3": 4_800,
      "flux-general-en": 6_500,
      "flux-general-multi": 7_800,
      "@cf/deepgram/flux": 7_700,
      "@cf/deepgram/nova-3": 9_200,
    },
  },
};

export const priceOf = (modality: Modality, model: string): number => PRICES[modality].models[model] ?? PRICES[modality].default;

/** The cost of a quantity: tokens (chat, embedding), characters (tts) or milliseconds of audio (stt), rounded up. */
export function costOf(modality: Modality, model: string, quantity: number): number {
  const price = priceOf(modality, model);
  const per = modality === "stt" ? 60_000 : 1_000;
  return Math.ceil((quantity * price) / per);
}
