// The default voice (docs/voices.md, "The default voice"): the lowest-latency voice the deployment
// can synthesize, Cartesia's Katie where Cartesia is configured, OpenAI's Alloy otherwise.
import { describe, expect, it } from "vitest";
import { ALLOY_VOICE_ID, defaultVoiceId, KATIE_VOICE_ID } from "../../../src/voices/service";

describe("defaultVoiceId", () => {
  it("is Katie when CARTESIA_API_KEY is set", () => {
    expect(defaultVoiceId({ CARTESIA_API_KEY: "sk_car_x" })).toBe(KATIE_VOICE_ID);
  });
  it("is Alloy without Cartesia", () => {
    expect(defaultVoiceId({})).toBe(ALLOY_VOICE_ID);
    expect(defaultVoiceId({ CARTESIA_API_KEY: undefined })).toBe(ALLOY_VOICE_ID);
  });
});
