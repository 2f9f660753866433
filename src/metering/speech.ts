// Text to speech for live calls, metered by characters: the one path a call's speech takes, whole
// (the serial loop, `synthesizeWhole`) or streamed as it is made (`synthesizeStreamed`).
import type { Db } from "../db/client";
import type { SpeechRequest, TtsProvider } from "../providers/types";
import { meter, meterStream, type Payer } from "./metered";

export const characters = (text: string) => [...text].length;

/** The whole audio of `request.text`; its characters are held, then charged. */
export function synthesizeWhole(
  db: Db,
  payer: Payer,
  provider: TtsProvider,
  request: SpeechRequest,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<ArrayBuffer> {
  const n = characters(request.text);
  return meter(
    db,
    payer,
    { modality: "tts", provider: provider.name, model: request.model, maxQuantity: n },
    async () => ({ result: await provider.synthesize(request), quantity: n }),
    settleInBackground,
  );
}

/**
 * The audio of `request.text` as it arrives (`onAudio` per chunk). The text's characters are held;
 * they are charged once the provider has produced audio for it (its first byte arrived), also when
 * `signal` cancels it after that; a request cancelled before any audio is not charged (docs/calls.md).
 * Resolves with the bytes received.
 */
export function synthesizeStreamed(
  db: Db,
  payer: Payer,
  provider: TtsProvider,
  request: SpeechRequest,
  onAudio: (bytes: Uint8Array) => void,
  signal?: AbortSignal,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<number> {
  const n = characters(request.text);
  return meterStream(
    db,
    payer,
    { modality: "tts", provider: provider.name, model: request.model, maxQuantity: n },
    async (produced) => {
      let bytes = 0;
      for await (const chunk of provider.synthesizeStream(request, signal)) {
        bytes += chunk.length;
        produced.quantity = n;
        onAudio(chunk);
      }
      return bytes;
    },
    settleInBackground,
  );
}
