// mespeak's thread dies after 50 to 100 syntheses; the sandbox recycles it (JOBS_PER_WORKER).
// Without that, `npm run dev` went down after about a hundred TTS calls.
import { describe, expect, it } from "vitest";
import { JOBS_PER_WORKER, Synthesizer, VOICES } from "../../../dev/sandbox/audio";

describe("sandbox speech synthesizer", () => {
  it("keeps answering past the point where a single eSpeak thread dies", async () => {
    const synth = new Synthesizer(0); // every request rendered: nothing remembered
    const profile = Object.values(VOICES)[0];
    if (!profile) throw new Error("no voices");
    try {
      const calls = 6 * JOBS_PER_WORKER;
      for (let i = 0; i < calls; i += 3) {
        const out = await Promise.all([synth.speak("Hi.", profile, 1), synth.speak("Hello.", profile, 1), synth.speak("Yes.", profile, 1)]);
        for (const { pcm } of out) expect(pcm.length).toBeGreaterThan(1000);
      }
      expect(synth.rendered).toBe(calls);
    } finally {
      await synth.close();
    }
  }, 120_000);

  it("renders a line once: concurrent and later asks get the same audio; another voice, speed or text is rendered anew", async () => {
    const synth = new Synthesizer(2);
    const [a, b] = Object.values(VOICES);
    if (!a || !b) throw new Error("two voices needed");
    try {
      const [first, second] = await Promise.all([synth.speak("Hello there.", a, 1), synth.speak("Hello there.", a, 1)]);
      expect(synth.rendered).toBe(1);
      expect(second.pcm.equals(first.pcm)).toBe(true);
      expect((await synth.speak("Hello there.", a, 1)).pcm.equals(first.pcm)).toBe(true);
      expect(synth.rendered).toBe(1);
      const other = await synth.speak("Hello there.", b, 1);
      expect(other.pcm.equals(first.pcm)).toBe(false);
      await synth.speak("Hello there.", a, 1.5);
      expect(synth.rendered).toBe(3);
      // Two remembered: the oldest ("Hello there." in the first voice, asked last before the other two) went.
      await synth.speak("Hello there.", a, 1);
      expect(synth.rendered).toBe(4);
    } finally {
      await synth.close();
    }
  }, 60_000);
});
