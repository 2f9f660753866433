// RIFF/WAVE reading and writing for the provider sandbox: enough of the format to validate an
// upload, measure its real duration, and carry the sandbox's transcript in a LIST/INFO chunk.

/** ISFT (software) value that marks a WAV as the sandbox's own: its ICMT (comment) is then the spoken text. */
export const SANDBOX_SOFTWARE = "voice-agent-platform provider sandbox";

export class WavError extends Error {}

export interface WavInfo {
  /** 1 (PCM), or 0xFFFE (WAVE_FORMAT_EXTENSIBLE) carrying PCM. */
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: 8 | 16;
  blockAlign: number;
  /** Byte range of the sample data inside the file. */
  dataOffset: number;
  dataLength: number;
  frames: number;
  durationSeconds: number;
  /** LIST/INFO entries (ISFT, ICMT, INAM…) decoded as UTF-8, trailing NULs removed. */
  info: Record<string, string>;
}

const PCM_SUBFORMAT = "0100000000001000800000aa00389b71"; // KSDATAFORMAT_SUBTYPE_PCM

function readInfoList(buf: Buffer, start: number, end: number, into: Record<string, string>): void {
  let p = start;
  while (p + 8 <= end) {
    const id = buf.toString("latin1", p, p + 4);
    const size = buf.readUInt32LE(p + 4);
    if (p + 8 + size > end) break; // a damaged INFO list is ignored, not fatal
    into[id] = buf.toString("utf8", p + 8, p + 8 + size).replace(/\0+$/, "");
    p += 8 + size + (size & 1);
  }
}

/** Validates a RIFF/WAVE file holding 8- or 16-bit PCM, mono or stereo, and measures it. Throws WavError. */
export function parseWav(buf: Buffer): WavInfo {
  if (buf.length < 12 || buf.toString("latin1", 0, 4) !== "RIFF" || buf.toString("latin1", 8, 12) !== "WAVE")
    throw new WavError("not a WAV file (no RIFF/WAVE header)");
  let fmt: Omit<WavInfo, "dataOffset" | "dataLength" | "frames" | "durationSeconds" | "info"> | undefined;
  let data: { offset: number; length: number } | undefined;
  const info: Record<string, string> = {};
  let p = 12;
  while (p + 8 <= buf.length) {
    const id = buf.toString("latin1", p, p + 4);
    let size = buf.readUInt32LE(p + 4);
    const body = p + 8;
    if (body + size > buf.length) {
      // Streaming writers leave the data size at 0 or 0xFFFFFFFF; anything else that overruns is a cut file.
      if (id === "data" && (size === 0xffffffff || size === 0)) size = buf.length - body;
      else throw new WavError(`truncated file: the '${id.replace(/[^\x20-\x7e]/g, "?")}' chunk runs past the end`);
    }
    if (id === "fmt ") {
      if (size < 16) throw new WavError("fmt chunk too short");
      const formatTag = buf.readUInt16LE(body);
      const channels = buf.readUInt16LE(body + 2);
      const sampleRate = buf.readUInt32LE(body + 4);
      const blockAlign = buf.readUInt16LE(body + 12);
      const bits = buf.readUInt16LE(body + 14);
      let pcm = formatTag === 1;
      if (formatTag === 0xfffe) {
        if (size < 40) throw new WavError("WAVE_FORMAT_EXTENSIBLE fmt chunk too short");
        pcm = buf.toString("hex", body + 24, body + 40) === PCM_SUBFORMAT;
      }
      if (!pcm) throw new WavError(`unsupported WAV encoding (format tag ${formatTag}); only PCM is decoded`);
      if (bits !== 8 && bits !== 16) throw new WavError(`unsupported sample size ${bits} bits; only 8- and 16-bit PCM`);
      if (channels !== 1 && channels !== 2) throw new WavError(`unsupported channel count ${channels}; only mono and stereo`);
      if (sampleRate < 1000 || sampleRate > 384_000) throw new WavError(`implausible sample rate ${sampleRate} Hz`);
      if (blockAlign !== (channels * bits) / 8) throw new WavError("inconsistent block align in fmt chunk");
      fmt = { formatTag, channels, sampleRate, bitsPerSample: bits, blockAlign };
    } else if (id === "data") {
      if (!fmt) throw new WavError("data chunk before fmt chunk");
      if (!data) data = { offset: body, length: size };
    } else if (id === "LIST" && size >= 4 && buf.toString("latin1", body, body + 4) === "INFO") {
      readInfoList(buf, body + 4, body + size, info);
    }
    p = body + size + (size & 1);
  }
  if (!fmt) throw new WavError("no fmt chunk");
  if (!data) throw new WavError("no data chunk");
  const frames = Math.floor(data.length / fmt.blockAlign);
  return { ...fmt, dataOffset: data.offset, dataLength: data.length, frames, durationSeconds: frames / fmt.sampleRate, info };
}

/** A LIST/INFO chunk; values are written as UTF-8, NUL-terminated, padded to an even size. */
export function infoChunk(entries: Array<[string, string]>): Buffer {
  const subs = entries.map(([id, value]) => {
    const text = Buffer.from(`${value}\0`, "utf8");
    const head = Buffer.alloc(8);
    head.write(id, 0, 4, "latin1");
    head.writeUInt32LE(text.length, 4);
    return Buffer.concat([head, text, Buffer.alloc(text.length & 1)]);
  });
  const body = Buffer.concat([Buffer.from("INFO", "latin1"), ...subs]);
  const head = Buffer.alloc(8);
  head.write("LIST", 0, 4, "latin1");
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

/**
 * A 16-bit PCM WAV: RIFF header, fmt, data, then any extra chunks. Extra chunks go after the
 * samples so that readers which assume a 44-byte header still find the audio where they expect it.
 */
export function buildWav(pcm16: Buffer, sampleRate: number, channels = 1, extra: Buffer[] = []): Buffer {
  const dataPad = pcm16.length & 1;
  const header = Buffer.alloc(44);
  const tail = Buffer.concat(extra);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + pcm16.length + dataPad + tail.length, 4);
  header.write("WAVE", 8, "latin1");
  header.write("fmt ", 12, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(pcm16.length, 40);
  return Buffer.concat([header, pcm16, Buffer.alloc(dataPad), tail]);
}

/** Mono 16-bit little-endian samples resampled by linear interpolation. */
export function resample16(pcm16: Buffer, from: number, to: number): Buffer {
  const n = Math.floor(pcm16.length / 2);
  if (from === to || n === 0) return Buffer.from(pcm16.subarray(0, n * 2));
  const outN = Math.round((n * to) / from);
  const out = Buffer.alloc(outN * 2);
  const step = from / to;
  for (let i = 0; i < outN; i++) {
    const x = i * step;
    const i0 = Math.floor(x);
    const i1 = Math.min(i0 + 1, n - 1);
    const f = x - i0;
    const a = pcm16.readInt16LE(Math.min(i0, n - 1) * 2);
    const b = pcm16.readInt16LE(i1 * 2);
    out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(a + (b - a) * f))), i * 2);
  }
  return out;
}

/** The samples of a parsed WAV as mono 16-bit (8-bit widened, stereo averaged). */
export function wavSamples(buf: Buffer, wav: WavInfo): Int16Array {
  const out = new Int16Array(wav.frames);
  const bytes = wav.bitsPerSample / 8;
  for (let i = 0; i < wav.frames; i++) {
    let sum = 0;
    for (let c = 0; c < wav.channels; c++) {
      const at = wav.dataOffset + i * wav.blockAlign + c * bytes;
      sum += wav.bitsPerSample === 16 ? buf.readInt16LE(at) : (buf.readUInt8(at) - 128) << 8;
    }
    out[i] = Math.round(sum / wav.channels);
  }
  return out;
}
