// ElevenLabs' text-to-speech API as the provider sandbox speaks it, so the platform's ElevenLabs
// adapter (src/providers/elevenlabs.ts) runs unchanged on a laptop and in CI: only its base URL
// differs. The wire format is ElevenLabs': `POST /v1/text-to-speech/{voice_id}` (and `…/stream`)
// with the key in `xi-api-key`, `output_format` in the query, a JSON body `{text, model_id,
// voice_settings}`, audio bytes back, and errors as `{"detail": {"status", "message"}}` (422 with
// FastAPI's list of problems for a malformed body). The speech is the same eSpeak audio as the
// OpenAI-compatible side, with one voice per premade ElevenLabs voice. See docs/sandbox.md.
import { createHash } from "node:crypto";
import { mulawEncode, pcm16FromBytes, resample } from "../../src/calls/codec";
import type { Synthesizer, VoiceProfile } from "./audio";
import type { SpeechMemory } from "./recognize";
import { resample16 } from "./wav";

/** An ElevenLabs error: `detail` is `{status, message}`, or FastAPI's list for a 422. */
export class ElevenLabsError extends Error {
  constructor(
    readonly status: number,
    readonly detail: { status: string; message: string } | Array<{ type: string; loc: Array<string | number>; msg: string }>,
    readonly headers: Record<string, string> = {},
  ) {
    super(Array.isArray(detail) ? (detail[0]?.msg ?? "invalid request") : detail.message);
  }

  body(): { detail: ElevenLabsError["detail"] } {
    return { detail: this.detail };
  }
}

const refused = (status: number, code: string, message: string) => new ElevenLabsError(status, { status: code, message });
const unprocessable = (loc: Array<string | number>, type: string, msg: string) => new ElevenLabsError(422, [{ type, loc, msg }]);

/** ElevenLabs' premade voices the sandbox knows by id, each a different eSpeak voice. */
export const ELEVENLABS_VOICES: Record<string, { name: string; profile: VoiceProfile }> = {
  "21m00Tcm4TlvDq8ikWAM": { name: "Rachel", profile: { voice: "en/en-us", variant: "f3", pitch: 58 } },
  pNInz6obpgDQGcFmaJgB: { name: "Adam", profile: { voice: "en/en-us", variant: "m2", pitch: 25 } },
  AZnzlk1XvdvUeBnXmlld: { name: "Domi", profile: { voice: "en/en-us", variant: "f4", pitch: 64 } },
  EXAVITQu4vr4xnSDxMaL: { name: "Sarah", profile: { voice: "en/en-us", variant: "f1", pitch: 52 } },
  ErXwobaYiN019PkySvjV: { name: "Antoni", profile: { voice: "en/en-us", variant: "m5", pitch: 45 } },
  MF3mGyEYCl7XYWbV9V6O: { name: "Elli", profile: { voice: "en/en-us", variant: "f5", pitch: 68 } },
  TxGEqnHWrfWFTfGW9XjX: { name: "Josh", profile: { voice: "en/en-us", variant: "m3", pitch: 35 } },
  VR6AewLTigWG4xSOukaG: { name: "Arnold", profile: { voice: "en/en-us", variant: "m6", pitch: 30 } },
  yoZ06aMxZJJ28mfd3POQ: { name: "Sam", profile: { voice: "en/en-us", variant: "m1", pitch: 50 } },
  JBFqnCBsd6RMkjVDRZzb: { name: "George", profile: { voice: "en/en-rp", variant: "m4", pitch: 40 } },
};

/** ElevenLabs voice ids are 20 letters and digits. */
const VOICE_ID = /^[A-Za-z0-9]{20}$/;
/** Per request, as eleven_multilingual_v2 allows. */
export const ELEVENLABS_MAX_CHARS = 10_000;
export const ELEVENLABS_DEFAULT_MODEL = "eleven_multilingual_v2";
export const ELEVENLABS_DEFAULT_FORMAT = "mp3_44100_128";

/** The output formats the sandbox produces: raw 16-bit PCM at these rates, and 8 kHz μ-law. */
const PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000];
/** Formats ElevenLabs has that the sandbox does not encode (it has no MP3 or Opus encoder). */
const UNENCODED = /^(mp3_(22050_32|24000_48|44100_(32|64|96|128|192))|opus_48000_(32|64|96|128|192)|alaw_8000)$/;

export type OutputFormat = { codec: "pcm"; rate: number } | { codec: "ulaw"; rate: 8000 };

export interface ElevenLabsSpeech {
  voiceId: string;
  profile: VoiceProfile;
  text: string;
  model: string;
  format: OutputFormat;
  /** voice_settings.speed: 0.7 to 1.2, 1 by default. */
  speed: number;
  stream: boolean;
}

/** `/v1/text-to-speech/{voice_id}` or `…/{voice_id}/stream`; null for any other path. */
export function ttsPath(path: string): { voiceId: string; stream: boolean } | null {
  const m = /^\/v1\/text-to-speech\/([^/]+)(\/stream)?$/.exec(path);
  if (!m?.[1]) return null;
  let voiceId: string;
  try {
    voiceId = decodeURIComponent(m[1]);
  } catch {
    voiceId = m[1];
  }
  return { voiceId, stream: Boolean(m[2]) };
}

export function outputFormat(value: string | null): OutputFormat {
  const format = value ?? ELEVENLABS_DEFAULT_FORMAT;
  const pcm = /^pcm_(\d+)$/.exec(format);
  if (pcm && PCM_RATES.includes(Number(pcm[1]))) return { codec: "pcm", rate: Number(pcm[1]) };
  if (format === "ulaw_8000") return { codec: "ulaw", rate: 8000 };
  if (UNENCODED.test(format))
    throw refused(
      400,
      "unsupported_output_format",
      `The provider sandbox does not encode ${format}${value === null ? " (the default when output_format is omitted)" : ""}: it produces ${PCM_RATES.map((r) => `pcm_${r}`).join(", ")} and ulaw_8000.`,
    );
  throw unprocessable(["query", "output_format"], "enum", `Input should be a known output format, got '${format}'`);
}

/** The voice for an id: a known premade voice, or any other well-formed id (a stable pick among them). */
export function voiceFor(voiceId: string): VoiceProfile {
  const known = ELEVENLABS_VOICES[voiceId];
  if (known) return known.profile;
  if (!VOICE_ID.test(voiceId) || voiceId.startsWith("missing"))
    throw refused(404, "voice_not_found", `A voice with voice_id '${voiceId}' was not found.`);
  const all = Object.values(ELEVENLABS_VOICES);
  const pick = createHash("sha256").update(voiceId).digest().readUInt32BE(0) % all.length;
  return (all[pick] as { profile: VoiceProfile }).profile;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks the request as ElevenLabs does (its FastAPI 422s for the body's shape). The model is the caller's to check. */
export function parseElevenLabsRequest(voiceId: string, stream: boolean, query: URLSearchParams, body: unknown): ElevenLabsSpeech {
  if (!isObject(body)) throw unprocessable(["body"], "model_attributes_type", "Input should be a valid dictionary or object");
  if (body.text === undefined) throw unprocessable(["body", "text"], "missing", "Field required");
  if (typeof body.text !== "string") throw unprocessable(["body", "text"], "string_type", "Input should be a valid string");
  if (body.text.trim() === "") throw refused(400, "empty_text", "The text to speak is empty.");
  const length = [...body.text].length;
  if (length > ELEVENLABS_MAX_CHARS)
    throw refused(
      400,
      "max_character_limit_exceeded",
      `This request's text has ${length} characters and exceeds the character limit of ${ELEVENLABS_MAX_CHARS} characters.`,
    );
  const model = body.model_id ?? ELEVENLABS_DEFAULT_MODEL;
  if (typeof model !== "string") throw unprocessable(["body", "model_id"], "string_type", "Input should be a valid string");
  let speed = 1;
  const settings = body.voice_settings;
  if (settings !== undefined && settings !== null) {
    if (!isObject(settings))
      throw unprocessable(["body", "voice_settings"], "model_attributes_type", "Input should be a valid dictionary or object");
    for (const key of ["stability", "similarity_boost", "style"] as const) {
      const v = settings[key];
      if (v !== undefined && v !== null && (typeof v !== "number" || v < 0 || v > 1))
        throw unprocessable(["body", "voice_settings", key], "less_than_equal", "Input should be a number from 0 to 1");
    }
    if (settings.use_speaker_boost !== undefined && typeof settings.use_speaker_boost !== "boolean")
      throw unprocessable(["body", "voice_settings", "use_speaker_boost"], "bool_type", "Input should be a valid boolean");
    if (settings.speed !== undefined && settings.speed !== null) {
      if (typeof settings.speed !== "number" || settings.speed < 0.7 || settings.speed > 1.2)
        throw unprocessable(["body", "voice_settings", "speed"], "less_than_equal", "Input should be a number from 0.7 to 1.2");
      speed = settings.speed;
    }
  }
  const format = outputFormat(query.get("output_format"));
  return { voiceId, profile: voiceFor(voiceId), text: body.text, model, format, speed, stream };
}

const CONTENT_TYPES = { pcm: "audio/pcm", ulaw: "audio/basic" } as const;

/** The speech in the asked format; remembered (like the OpenAI side's) so a call's capture of it can be transcribed. */
export async function speakElevenLabs(
  synth: Synthesizer,
  req: ElevenLabsSpeech,
  memory?: SpeechMemory,
): Promise<{ body: Buffer; contentType: string }> {
  const { pcm, sampleRate } = await synth.speak(req.text, req.profile, req.speed);
  const samples = pcm16FromBytes(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.length));
  memory?.remember(JSON.stringify(["elevenlabs", req.voiceId, req.speed, req.text]), req.text, samples, sampleRate);
  if (req.format.codec === "ulaw") {
    return { body: Buffer.from(mulawEncode(resample(samples, sampleRate, 8000))), contentType: CONTENT_TYPES.ulaw };
  }
  return { body: resample16(pcm, sampleRate, req.format.rate), contentType: CONTENT_TYPES.pcm };
}
