// Chromium with a fake microphone that says one sentence: a WAV of the provider sandbox's own speech
// (the sandbox transcribes only speech it synthesized: docs/sandbox.md), looped by Chromium with
// silence around it, so the sentence is heard in full whenever a call connects. Used by the suites
// that talk to an agent from the dashboard (an agent's page, a widget's preview).
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { pcm16ToBytes } from "../../src/calls/codec";
import { CHROMIUM } from "./browser";
import { speech, WEB_RATE } from "./calls";

/** A mono 16-bit WAV of `samples` at `rate`. */
export function wav(samples: Int16Array, rate: number): Buffer {
  const data = Buffer.from(pcm16ToBytes(samples));
  const head = Buffer.alloc(44);
  head.write("RIFF", 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write("WAVEfmt ", 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** Chromium whose microphone says `sentence` (1.5 s of silence, the sentence, 6 s of silence, looped); `name` names the WAV. */
export async function launchWithMicrophone(sentence: string, name: string): Promise<Browser> {
  const spoken = await speech(sentence, WEB_RATE);
  const silence = (ms: number) => new Int16Array((WEB_RATE * ms) / 1000);
  const loop = new Int16Array([...silence(1_500), ...spoken, ...silence(6_000)]);
  const file = resolve(import.meta.dirname, `../../test-results/fake-mic-${name}.wav`);
  mkdirSync(resolve(file, ".."), { recursive: true });
  writeFileSync(file, wav(loop, WEB_RATE));
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${file}`,
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
}

/**
 * Counts what the page's web calls send: every binary message (the caller's 20 ms PCM frames) is
 * recorded as silent (all zero) or not, in `window.__sentFrames`. Call before the page loads.
 */
export async function countSentFrames(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = globalThis as unknown as {
      __sentFrames: boolean[];
      WebSocket: { prototype: { send(data: unknown): void } };
    };
    w.__sentFrames = [];
    const send = w.WebSocket.prototype.send;
    w.WebSocket.prototype.send = function (this: unknown, data: unknown) {
      if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        w.__sentFrames.push(bytes.every((b) => b === 0));
      }
      return send.call(this, data);
    };
  });
}

/** The frames sent so far: how many, and how many of those from `from` on carried sound. */
export const sentFrames = (page: Page, from = 0) =>
  page.evaluate<{ total: number; sounding: number }, number>((start) => {
    const frames = (globalThis as unknown as { __sentFrames: boolean[] }).__sentFrames;
    return { total: frames.length, sounding: frames.slice(start).filter((silent) => !silent).length };
  }, from);
