// Prices in one table, in micro-credits (1 credit = 1,000,000 micro-credits).
// chat: per 1,000 tokens (prompt + completion); tts: per 1,000 characters; stt: per minute of audio.
export type Modality = "chat" | "tts" | "stt";

export const PRICES: Record<Modality, { unit: string; default: number; models: Record<string, number> }> = {
  chat: { unit: "1,000 tokens", default: 2_000, models: { "gpt-4o": 10_000, "gpt-4.1": 8_000, "gpt-4o-mini": 600, "gpt-4.1-mini": 1_600 } },
  tts: { unit: "1,000 characters", default: 15_000, models: { "tts-1-hd": 30_000, eleven_multilingual_v2: 30_000 } },
  stt: { unit: "minute of audio", default: 6_000, models: {} },
};

export const priceOf = (modality: Modality, model: string): number => PRICES[modality].models[model] ?? PRICES[modality].default;

/** The cost of a quantity: tokens (chat), characters (tts) or milliseconds of audio (stt), rounded up. */
export function costOf(modality: Modality, model: string, quantity: number): number {
  const price = priceOf(modality, model);
  const per = modality === "stt" ? 60_000 : 1_000;
  return Math.ceil((quantity * price) / per);
}

export const toCredits = (micro: number) => micro / 1_000_000;
