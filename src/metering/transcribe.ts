// Speech to text, metered by seconds of audio: the one rule the Models API's upload and a
// messaging voice note share. A WAV's duration is read from its header before the provider is
// called; for compressed containers (OGG/Opus voice notes, MP3 …) the hold is a bound from the
// file size and the charge is the provider's reported duration, never more than the hold.
import type { Db } from "../db/client";
import { parseWav, sniffAudio } from "../lib/audio";
import { ApiError } from "../lib/errors";
import type { SttProvider, Transcription } from "../providers/types";
import { meter, type Payer } from "./metered";

/** Audio is limited to an hour and 25 MiB (the Models API's limits, OpenAI's file limit). */
export const STT_MAX_SECONDS = 3_600;
export const STT_MAX_BYTES = 25 * 1024 * 1024;

/** Compressed speech is at least ~8 kbit/s: bytes / 1000 bounds its seconds. */
const boundSecondsFromSize = (bytes: number) => Math.min(STT_MAX_SECONDS, Math.max(1, Math.ceil(bytes / 1000)));

export interface AudioUpload {
  bytes: Uint8Array;
  /** The media type to send the provider (the upload's, or the messaging provider's). */
  type: string;
  /** The file name to send; default `audio.<container>`. */
  filename?: string;
  model: string;
  language?: string;
}

/** Checks the audio, holds its bound, transcribes, settles the seconds heard. `invalid_audio` for what is not audio we accept. */
export async function meteredTranscription(
  db: Db,
  payer: Payer,
  provider: SttProvider,
  audio: AudioUpload,
  settleInBackground?: (work: Promise<unknown>) => void,
): Promise<Transcription & { durationSeconds: number }> {
  const { bytes } = audio;
  if (bytes.length === 0) throw new ApiError("invalid_audio", "The uploaded file is empty.");
  if (bytes.length > STT_MAX_BYTES)
    throw new ApiError("payload_too_large", `Audio files are limited to ${STT_MAX_BYTES / 1024 / 1024} MiB.`);
  const container = sniffAudio(bytes);
  if (!container) throw new ApiError("invalid_audio", "The file is not audio we accept: send WAV, MP3, OGG/Opus, FLAC, WebM or MP4/M4A.");
  let knownSeconds: number | null = null;
  if (container === "wav") {
    const wav = parseWav(bytes);
    if (!wav) throw new ApiError("invalid_audio", "The WAV file is corrupt or not PCM: no readable fmt and data chunks.");
    knownSeconds = wav.durationSeconds;
    if (knownSeconds > STT_MAX_SECONDS) throw new ApiError("invalid_audio", `Audio is limited to ${STT_MAX_SECONDS / 60} minutes.`);
  }
  const maxMs = Math.ceil((knownSeconds ?? boundSecondsFromSize(bytes.length)) * 1000);
  return meter(
    db,
    payer,
    { modality: "stt", provider: provider.name, model: audio.model, maxQuantity: maxMs },
    async (signal) => {
      const result = await provider.transcribe(
        {
          audio: new Blob([bytes], { type: audio.type || "application/octet-stream" }),
          filename: audio.filename || `audio.${container}`,
          model: audio.model,
          language: audio.language,
        },
        signal,
      );
      const seconds = knownSeconds ?? result.durationSeconds ?? maxMs / 1000;
      const audioMs = Math.min(maxMs, Math.ceil(seconds * 1000));
      return { result: { ...result, durationSeconds: audioMs / 1000 }, quantity: audioMs };
    },
    settleInBackground,
  );
}
