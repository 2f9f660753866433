// The price table: a model without a price of its own pays its modality's default; Cartesia's Sonic
// and Deepgram's streaming models (the call runtime's speech and live transcription) have theirs.
import { describe, expect, it } from "vitest";
import { costOf, PRICES, priceOf } from "../../../src/metering/prices";
import { CARTESIA_DEFAULT_MODEL } from "../../../src/providers/cartesia";
import { workersAiModelOf } from "../../../src/providers/workers-ai";

describe("prices", () => {
  it("prices Cartesia's default model and Deepgram's Nova-3 and Flux, and falls back to the default otherwise", () => {
    expect(priceOf("tts", CARTESIA_DEFAULT_MODEL)).toBe(50_000);
    expect(priceOf("stt", "nova-3")).toBe(4_800);
    expect(priceOf("stt", "flux-general-en")).toBe(6_500);
    expect(priceOf("stt", "flux-general-multi")).toBe(7_800);
    // through the Workers AI binding: Cloudflare's model names and list prices (the platform pays Cloudflare)
    expect(priceOf("stt", workersAiModelOf("flux-general-en") as string)).toBe(7_700);
    expect(priceOf("stt", workersAiModelOf("nova-3") as string)).toBe(9_200);
    expect(workersAiModelOf("flux-general-multi")).toBeUndefined();
    expect(priceOf("tts", "not-a-model")).toBe(PRICES.tts.default);
    expect(priceOf("stt", "not-a-model")).toBe(PRICES.stt.default);
  });

  it("charges TTS per 1,000 characters and STT per minute (metered in milliseconds), rounded up", () => {
    expect(costOf("tts", "sonic-3", 1_000)).toBe(50_000);
    expect(costOf("tts", "sonic-3", 1)).toBe(50);
    expect(costOf("stt", "flux-general-en", 60_000)).toBe(6_500);
    expect(costOf("stt", "flux-general-en", 1)).toBe(1);
  });
});
