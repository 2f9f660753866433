// The streaming loop's pieces: sentences cut from streamed text, PCM resampled across chunk
// boundaries without seams, speech requested per chunk at once and played in order, and what a
// caller heard at a given moment of the playback timeline.
import { describe, expect, it } from "vitest";
import { pcm16ToBytes, resample } from "../../../src/calls/codec";
import { heardBeforeCut, heardText, PcmResampler, SentenceChunker, Utterance } from "../../../src/calls/utterance";

describe("SentenceChunker", () => {
  const cut = (pieces: string[]) => {
    const c = new SentenceChunker();
    return [...pieces.flatMap((p) => c.push(p)), ...c.flush()];
  };

  it("cuts at sentence ends as the tokens arrive, whatever the pieces", () => {
    const text = "Goodbye! You said: No, that's all. Goodbye.";
    expect(cut([text])).toEqual(["Goodbye!", "You said: No, that's all.", "Goodbye."]);
    expect(cut(text.split(/(?=\s)/))).toEqual(["Goodbye!", "You said: No, that's all.", "Goodbye."]);
    expect(cut([...text])).toEqual(["Goodbye!", "You said: No, that's all.", "Goodbye."]);
  });

  it("a chunk is complete only once white space follows its end mark", () => {
    const c = new SentenceChunker();
    expect(c.push("It costs 3.")).toEqual([]);
    expect(c.push("5 dollars. Ok")).toEqual(["It costs 3.5 dollars."]);
    expect(c.flush()).toEqual(["Ok"]);
  });

  it("keeps abbreviations and initials inside the sentence, closing quotes with it", () => {
    expect(cut(['Dr. Smith and J. Doe said "yes." Then', " we left?! Fine"])).toEqual([
      'Dr. Smith and J. Doe said "yes."',
      "Then we left?!",
      "Fine",
    ]);
  });

  it("lets the first chunk end at a clause once it is long enough; later chunks are whole sentences", () => {
    const text = "Of course, let me see: your order, number 42, has shipped. It left today, by courier. Fine";
    // "Of course," is 10 characters: too short to be said alone, so the first clause runs to "see:".
    expect(cut(text.split(/(?=\s)/))).toEqual([
      "Of course, let me see:",
      "your order, number 42, has shipped.",
      "It left today, by courier.",
      "Fine",
    ]);
    // A sentence that ends before any long-enough clause is the first chunk; numbers keep their commas.
    expect(cut(["Goodbye! You said: No, that's all."])).toEqual(["Goodbye!", "You said: No, that's all."]);
    expect(cut(["It costs 3,500 dollars, give or take."])).toEqual(["It costs 3,500 dollars,", "give or take."]);
    // After flush, the next reply's first chunk may be a clause again.
    const c = new SentenceChunker();
    expect([...c.push("Certainly, my friend, here it is. "), ...c.flush()]).toEqual(["Certainly, my friend,", "here it is."]);
    expect([...c.push("Well then, off we go now. "), ...c.flush()]).toEqual(["Well then, off we go now."]);
  });

  it("cuts a run-on reply at a comma or a space so it still streams", () => {
    const long = `${"word ".repeat(40)}, ${"more ".repeat(40)}`;
    const chunks = cut([long]);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.length <= 240)).toBe(true);
    expect(chunks.join(" ").replace(/\s+/g, " ")).toBe(long.trim().replace(/\s+/g, " "));
  });
});

describe("PcmResampler", () => {
  it("gives the same samples as resampling the whole, for chunks that split samples and blocks", () => {
    const samples = Int16Array.from({ length: 2400 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
    const bytes = pcm16ToBytes(samples);
    for (const to of [8000, 16000]) {
      const r = new PcmResampler(24000, to);
      const parts: Int16Array[] = [];
      for (let at = 0; at < bytes.length; at += 1001) parts.push(r.push(bytes.subarray(at, at + 1001)));
      parts.push(r.flush());
      const joined = Int16Array.from(parts.flatMap((p) => [...p]));
      const whole = resample(samples, 24000, to);
      expect(joined.length).toBe(whole.length);
      // The filters look one sample past a block: only the last output sample of a piece may differ, and only a little.
      const differing = joined.filter((v, i) => v !== whole[i]).length;
      expect(differing).toBeLessThanOrEqual(parts.length);
      const diff = joined.reduce((m, v, i) => Math.max(m, Math.abs(v - (whole[i] as number))), 0);
      expect(diff).toBeLessThan(1500);
    }
  });
});

describe("heardText", () => {
  const chunks = [
    { text: "Hello there.", startAt: 1000, endAt: 2000 },
    { text: "We are open from nine to five.", startAt: 2000, endAt: 4000 },
  ];
  it("whole chunks that finished, the share of words of the one playing, nothing before the start", () => {
    expect(heardText(chunks, 500)).toBe("");
    expect(heardText(chunks, 2000)).toBe("Hello there.");
    expect(heardText(chunks, 3000)).toBe("Hello there. We are open");
    expect(heardText(chunks, 9000)).toBe("Hello there. We are open from nine to five.");
  });
});

describe("heardBeforeCut", () => {
  const greeting = [
    { text: "Hello, thank you for calling Acme Dental,", startAt: 1000, endAt: 3500 },
    { text: "we are open from nine to five.", startAt: 3500, endAt: 5500 },
  ];
  it("a reply cut in its first word keeps that word: an early barge-in into a greeting is not an empty turn", () => {
    expect(heardText(greeting, 1080)).toBe(""); // what a barge-in kept before: the greeting's text lost
    expect(heardBeforeCut(greeting, 1080)).toBe("Hello,");
    expect(heardBeforeCut(greeting, 900)).toBe("Hello,"); // the caller was already making a sound as it began
  });
  it("the words up to the cut, the one being said included; whole chunks that finished", () => {
    const two = [
      { text: "Hello there.", startAt: 1000, endAt: 2000 },
      { text: "We are open from nine to five.", startAt: 2000, endAt: 4000 },
    ];
    expect(heardBeforeCut(two, 3000)).toBe("Hello there. We are open from"); // half of 7 words: the 4th is being said
    expect(heardBeforeCut(greeting, 4000)).toBe("Hello, thank you for calling Acme Dental, we are");
    expect(heardBeforeCut(greeting, 9000)).toBe(`${greeting[0]?.text} ${greeting[1]?.text}`);
    expect(heardBeforeCut([], 1000)).toBe("");
  });
});

describe("Utterance", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("requests every chunk's speech at once and sends the audio in chunk order as it arrives", async () => {
    const requested: string[] = [];
    const sent: number[] = [];
    const ac = new AbortController();
    const u = new Utterance({
      // The second chunk's audio comes first: it must still play second.
      synthesize: async (text, onAudio) => {
        requested.push(text);
        await sleep(text === "one" ? 60 : 10);
        onAudio(pcm16ToBytes(Int16Array.from({ length: 2400 }, () => (text === "one" ? 1 : 2))));
        await sleep(5);
        onAudio(pcm16ToBytes(Int16Array.from({ length: 2400 }, () => (text === "one" ? 1 : 2))));
      },
      send: (s) => sent.push(s[0] as number),
      fromRate: 24000,
      rate: 8000,
      signal: ac.signal,
    });
    let firstAt = 0;
    u.onFirstAudio = () => {
      firstAt = u.firstAudio?.at ?? 0;
    };
    u.add("one");
    u.add("two");
    expect(requested).toEqual(["one", "two"]);
    u.end();
    await u.done;
    expect(sent).toEqual([1, 1, 2, 2]);
    expect(firstAt).toBeGreaterThan(0);
    expect(u.timeline.map((c) => c.text)).toEqual(["one", "two"]);
    expect((u.timeline[1]?.startAt as number) - (u.timeline[0]?.startAt as number)).toBeCloseTo(200, 0); // 2 × 100 ms of audio
    expect(u.firstAudio?.ttsMs).toBeGreaterThanOrEqual(50);
  });

  it("runs a chunk's `before` when its audio starts going out, in playback order, not when it is added", async () => {
    const ac = new AbortController();
    const log: string[] = [];
    const u = new Utterance({
      synthesize: async (text, onAudio) => {
        await sleep(text === "one" ? 40 : 5);
        onAudio(pcm16ToBytes(Int16Array.from({ length: 240 }, () => 1)));
      },
      send: () => log.push("audio"),
      fromRate: 24000,
      rate: 8000,
      signal: ac.signal,
    });
    u.onChunkStart = (text) => log.push(`start ${text}`);
    u.add("one");
    u.add("two", () => log.push(`before two (${u.timeline.length} on the timeline)`));
    expect(log).toEqual([]);
    u.end();
    await u.done;
    expect(log).toEqual(["start one", "audio", "before two (2 on the timeline)", "start two", "audio"]);
  });

  it("a cancel stops it: the pending speech is abandoned and `done` rejects", async () => {
    const ac = new AbortController();
    const sent: number[] = [];
    const u = new Utterance({
      synthesize: (_t, onAudio, signal) =>
        new Promise((resolve, reject) => {
          onAudio(pcm16ToBytes(new Int16Array(300)));
          signal.addEventListener("abort", () => reject(new Error("canceled")));
          setTimeout(resolve, 1000);
        }),
      send: (s) => sent.push(s.length),
      fromRate: 24000,
      rate: 8000,
      signal: ac.signal,
    });
    u.add("one");
    await sleep(5);
    ac.abort();
    await expect(u.done).rejects.toThrow();
    expect(sent).toEqual([100]);
  });
});
