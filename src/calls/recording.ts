// The call's recording: a stereo WAV (left: the caller, right: the agent) at the transport's
// rate, written to the RECORDINGS bucket (R2) when the call ends, compressed (gzip; μ-law for
// phone calls) and served as 16-bit PCM (docs/calls.md, "Recordings"). The agent's audio is placed
// where it was sent, queued behind audio still playing, and cut where a barge-in cleared it.
import type { Call } from "../db/schema";
import { mulawDecode, mulawEncode, pcm16ToBytes, TELEPHONY_RATE } from "./codec";
import type { StoredRecording } from "./queries/calls";

const MAX_SECONDS_NARROWBAND = 600;
const MAX_SECONDS_WIDEBAND = 300;

/** Where a call's recording is stored: a gzipped WAV (`.wav` objects stored before compression are served too). */
export const recordingKey = (call: Pick<Call, "organizationId" | "id">) => `recordings/${call.organizationId}/${call.id}.wav.gz`;

export class Recorder {
  private readonly callerFrames: Int16Array[] = [];
  private callerAt = 0;
  private readonly agentParts: Array<{ start: number; samples: Int16Array }> = [];
  private agentEnd = 0;
  private readonly capacity: number;

  constructor(
    private readonly rate: number,
    maxSeconds: number,
  ) {
    // Kept in memory until the end (a Durable Object has 128 MB): at most 10 minutes at 8 kHz
    // (phone), 5 at 16 kHz (web); a longer call's recording holds its beginning (docs/calls.md).
    this.capacity = rate * Math.min(maxSeconds + 5, rate > 8_000 ? MAX_SECONDS_WIDEBAND : MAX_SECONDS_NARROWBAND);
  }

  caller(frame: Int16Array): void {
    if (this.callerAt >= this.capacity) return;
    this.callerFrames.push(frame.slice());
    this.callerAt += frame.length;
  }

  /**
   * The caller's track goes on in silence up to `atMs` from the connect: their audio paused (the
   * stream was replaced while keys were pressed) and the tracks stay aligned.
   */
  callerUntil(atMs: number): void {
    const at = Math.min(this.capacity, Math.round((atMs / 1000) * this.rate));
    if (at <= this.callerAt) return;
    this.callerFrames.push(new Int16Array(at - this.callerAt));
    this.callerAt = at;
  }

  agent(samples: Int16Array, atMs: number): void {
    const start = Math.max(Math.round((atMs / 1000) * this.rate), this.agentEnd);
    if (start >= this.capacity) return;
    const kept = samples.subarray(0, this.capacity - start);
    this.agentParts.push({ start, samples: kept });
    this.agentEnd = start + kept.length;
  }

  cutAgent(atMs: number): void {
    const at = Math.max(0, Math.round((atMs / 1000) * this.rate));
    for (const part of this.agentParts) {
      if (part.start + part.samples.length > at) part.samples = part.samples.subarray(0, Math.max(0, at - part.start));
    }
    this.agentEnd = Math.min(this.agentEnd, at);
  }

  /** Both tracks, interleaved (left the caller, right the agent), and the number of stereo frames. */
  private interleaved(): { samples: Int16Array; frames: number } {
    const frames = Math.max(this.callerAt, this.agentEnd);
    const samples = new Int16Array(frames * 2);
    let i = 0;
    for (const frame of this.callerFrames) for (const sample of frame) samples[2 * i++] = sample;
    for (const part of this.agentParts)
      for (let j = 0; j < part.samples.length; j++) samples[2 * (part.start + j) + 1] = part.samples[j] as number;
    return { samples, frames };
  }

  /**
   * The recording as stored: a gzipped WAV, μ-law for a phone call (8 kHz: both directions were
   * μ-law on the line, so nothing is lost) and 16-bit PCM for a web call (lossless).
   */
  async stored(): Promise<StoredObject | null> {
    const { samples, frames } = this.interleaved();
    if (frames === 0) return null;
    const encoding: RecordingEncoding = this.rate === TELEPHONY_RATE ? "mulaw" : "pcm16";
    const wav = encoding === "mulaw" ? mulawWav(mulawEncode(samples), this.rate) : pcm16Wav(samples, this.rate);
    return {
      bytes: await gzip(wav),
      metadata: { encoding, rate: String(this.rate), frames: String(frames) },
      seconds: frames / this.rate,
    };
  }

  /** Uploads the recording; its key and length go into the call's final write (finishCall). Null when nothing was recorded. */
  async store(bucket: R2Bucket, call: Pick<Call, "organizationId" | "id">): Promise<StoredRecording | null> {
    const object = await this.stored();
    if (!object || object.seconds === 0) return null;
    const key = recordingKey(call);
    await bucket.put(key, object.bytes, { httpMetadata: { contentType: "application/gzip" }, customMetadata: object.metadata });
    return { key, seconds: object.seconds };
  }
}

// -- the stored format ---------------------------------------------------------------------------

export type RecordingEncoding = "mulaw" | "pcm16";

/** R2 custom metadata of a stored recording: how to turn it back into the 16-bit WAV served. */
export interface StoredMetadata extends Record<string, string> {
  encoding: RecordingEncoding;
  rate: string;
  /** Stereo sample frames. */
  frames: string;
}

export interface StoredObject {
  bytes: Uint8Array;
  metadata: StoredMetadata;
  seconds: number;
}

const WAV_PCM = 1;
const WAV_MULAW = 7;
/** A μ-law WAV's header: RIFF, `fmt ` with cbSize (18 bytes), `fact`, `data`. */
export const MULAW_HEADER_BYTES = 58;
export const PCM16_HEADER_BYTES = 44;

function riff(size: number, write: (view: DataView, ascii: (at: number, s: string) => void) => void): Uint8Array {
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i));
  };
  ascii(0, "RIFF");
  view.setUint32(4, size - 8, true);
  ascii(8, "WAVE");
  write(view, ascii);
  return out;
}

/** The 44-byte header of a 16-bit PCM stereo WAV of `frames` frames. */
export function pcm16WavHeader(frames: number, rate: number): Uint8Array {
  const header = riff(PCM16_HEADER_BYTES, (view, ascii) => {
    ascii(12, "fmt ");
    view.setUint32(16, 16, true);
    view.setUint16(20, WAV_PCM, true);
    view.setUint16(22, 2, true);
    view.setUint32(24, rate, true);
    view.setUint32(28, rate * 4, true);
    view.setUint16(32, 4, true);
    view.setUint16(34, 16, true);
    ascii(36, "data");
    view.setUint32(40, frames * 4, true);
  });
  // The RIFF size covers the data that follows the header.
  new DataView(header.buffer).setUint32(4, PCM16_HEADER_BYTES - 8 + frames * 4, true);
  return header;
}

/** A 16-bit PCM stereo WAV of interleaved samples. */
function pcm16Wav(samples: Int16Array, rate: number): Uint8Array {
  const frames = samples.length / 2;
  const out = new Uint8Array(PCM16_HEADER_BYTES + frames * 4);
  out.set(pcm16WavHeader(frames, rate));
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(PCM16_HEADER_BYTES + i * 2, samples[i] as number, true);
  return out;
}

/** A μ-law (G.711, WAVE_FORMAT_MULAW) stereo WAV of interleaved μ-law bytes. */
function mulawWav(bytes: Uint8Array, rate: number): Uint8Array {
  const frames = bytes.length / 2;
  const out = riff(MULAW_HEADER_BYTES + bytes.length, (view, ascii) => {
    ascii(12, "fmt ");
    view.setUint32(16, 18, true);
    view.setUint16(20, WAV_MULAW, true);
    view.setUint16(22, 2, true);
    view.setUint32(24, rate, true);
    view.setUint32(28, rate * 2, true);
    view.setUint16(32, 2, true);
    view.setUint16(34, 8, true);
    view.setUint16(36, 0, true);
    ascii(38, "fact");
    view.setUint32(42, 4, true);
    view.setUint32(46, frames, true);
    ascii(50, "data");
    view.setUint32(54, bytes.length, true);
  });
  out.set(bytes, MULAW_HEADER_BYTES);
  return out;
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * A stored recording as the 16-bit PCM WAV the API serves, streamed, and its size. Recordings
 * stored before compression (no metadata) are that WAV already.
 */
export function servedRecording(
  body: ReadableStream<Uint8Array>,
  storedSize: number,
  metadata: Record<string, string> | undefined,
): { body: ReadableStream<Uint8Array>; size: number } {
  if (!metadata?.encoding) return { body, size: storedSize };
  const frames = Number(metadata.frames);
  const rate = Number(metadata.rate);
  const wav = body.pipeThrough(new DecompressionStream("gzip"));
  const size = PCM16_HEADER_BYTES + frames * 4;
  if (metadata.encoding === "pcm16") return { body: wav, size };
  return { body: wav.pipeThrough(mulawToPcm16Wav(frames, rate)), size };
}

/** μ-law WAV bytes in, the same audio as a 16-bit PCM WAV out: its header, then each byte expanded. */
function mulawToPcm16Wav(frames: number, rate: number): TransformStream<Uint8Array, Uint8Array> {
  let skip = MULAW_HEADER_BYTES;
  return new TransformStream({
    start(controller) {
      controller.enqueue(pcm16WavHeader(frames, rate));
    },
    transform(chunk, controller) {
      const data = skip > 0 ? chunk.subarray(Math.min(skip, chunk.length)) : chunk;
      skip = Math.max(0, skip - chunk.length);
      if (data.length > 0) controller.enqueue(pcm16ToBytes(mulawDecode(data)));
    },
  });
}
