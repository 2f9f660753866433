// The provider sandbox's speech synthesizer, in a worker thread: meSpeak (eSpeak compiled to
// JavaScript, voices bundled in the npm package) renders synchronously, from ~50 ms for a
// sentence to ~4 s for 4,096 characters, which would otherwise stall every other request the
// sandbox is serving. One job at a time; each message is
// { id, text, voice, variant, pitch, wpm, wordgap } and the answer { id, wav } (an ArrayBuffer
// holding meSpeak's 16-bit 22,050 Hz mono WAV) or { id, error }.
"use strict";
const { parentPort } = require("node:worker_threads");

// meSpeak prints "Not in browser Only able to do raw" on load and warns through console.warn;
// failures reach the caller as exceptions instead.
console.warn = () => {};
const meSpeak = require("mespeak");

meSpeak.loadConfig(require("mespeak/src/mespeak_config.json"));
for (const id of ["en/en-us", "en/en", "en/en-rp", "en/en-sc"]) meSpeak.loadVoice(require(`mespeak/voices/${id}.json`));
meSpeak.setDefaultVoice("en/en-us");

parentPort.on("message", (job) => {
  try {
    // eSpeak gets the text as a command-line argument: a leading space keeps "-…" from being read as an option.
    const wav = meSpeak.speak(` ${job.text}`, {
      rawdata: "arraybuffer",
      voice: job.voice,
      variant: job.variant,
      pitch: job.pitch,
      speed: job.wpm,
      wordgap: job.wordgap,
    });
    if (!wav || !(wav instanceof ArrayBuffer)) throw new Error("meSpeak returned no audio");
    parentPort.postMessage({ id: job.id, wav }, [wav]);
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String(err?.message ?? err).slice(0, 300) });
  }
});
