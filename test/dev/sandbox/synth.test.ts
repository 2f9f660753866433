// mespeak's thread dies after 50 to 100 syntheses; the sandbox recycles it (JOBS_PER_WORKER).
// Without that, `npm run dev` went down after about a hundred TTS calls.
import { describe, expect, it } from "vitest";
import { JOBS_PER_WORKER, Synthesizer, VOICES } from "../../../dev/sandbox/audio";

describe("sandbox speech synthesizer", () => {
  it("keeps answering past the point where a single eSpeak thread dies", async () => {
    const synth = new Synthesizer();
    const profile = Object.values(VOICES)[0];
    if (!profile) throw new Error("no voices");
    try {
      const calls = 6 * JOBS_PER_WORKER;
      for (let i = 0; i < calls; i += 3) {
        const out = await Promise.all([synth.speak("Hi.", profile, 1), synth.speak("Hello.", profile, 1), synth.speak("Yes.", profile, 1)]);
        for (const { pcm } of out) expect(pcm.length).toBeGreaterThan(1000);
      }
    } finally {
      await synth.close();
    }
  }, 120_000);
});
