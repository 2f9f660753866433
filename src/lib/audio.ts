// Just enough audio to meter and wrap: WAV headers (parse for duration, write around PCM) and
// a sniff of the containers we accept for speech-to-text.

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataBytes: number;
  durationSeconds: number;
}

const ascii = (view: DataView, at: number, n: number) => String.fromCharCode(...Array.from({ length: n }, (_, i) => view.getUint8(at + i)));

/** Parses a RIFF/WAVE header; null when the bytes are not a readable PCM WAV. */
export function parseWav(bytes: Uint8Array): WavInfo | null {
  if (bytes.length < 44) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (ascii(view, 0, 4) !== "RIFF" || ascii(view, 8, 4) !== "WAVE") return null;
  let at = 12;
  let fmt: { channels: number; sampleRate: number; bitsPerSample: number; format: number } | null = null;
  while (at + 8 <= bytes.length) {
    const id = ascii(view, at, 4);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt " && at + 24 <= bytes.length) {
      fmt = {
        format: view.getUint16(at + 8, true),
        channels: view.getUint16(at + 10, true),
        sampleRate: view.getUint32(at + 12, true),
        bitsPerSample: view.getUint16(at + 22, true),
      };
    } else if (id === "data") {
      if (!fmt || fmt.channels === 0 || fmt.sampleRate === 0 || fmt.bitsPerSample === 0) return null;
      if (fmt.format !== 1 && fmt.format !== 3 && fmt.format !== 0xfffe) return null;
      const dataBytes = Math.min(size, bytes.length - at - 8);
      const bytesPerSecond = fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8);
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bitsPerSample,
        dataBytes,
        durationSeconds: dataBytes / bytesPerSecond,
      };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** Wraps raw 16-bit little-endian PCM in a WAV header. */
export function pcmToWav(pcm: Uint8Array, sampleRate: number, channels = 1): Uint8Array {
  const out = new Uint8Array(44 + pcm.length);
  const view = new DataView(out.buffer);
  const write = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i));
  };
  write(0, "RIFF");
  view.setUint32(4, 36 + pcm.length, true);
  write(8, "WAVE");
  write(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  write(36, "data");
  view.setUint32(40, pcm.length, true);
  out.set(pcm, 44);
  return out;
}

export type AudioContainer = "wav" | "mp3" | "ogg" | "flac" | "webm" | "mp4";

/** The container, from its first bytes; null when it is not audio we accept. */
export function sniffAudio(bytes: Uint8Array): AudioContainer | null {
  const b = (i: number) => bytes[i] ?? -1;
  const text = (at: number, s: string) => [...s].every((ch, i) => b(at + i) === ch.charCodeAt(0));
  if (text(0, "RIFF") && text(8, "WAVE")) return "wav";
  if (text(0, "ID3") || (b(0) === 0xff && (b(1) & 0xe0) === 0xe0)) return "mp3";
  if (text(0, "OggS")) return "ogg";
  if (text(0, "fLaC")) return "flac";
  if (b(0) === 0x1a && b(1) === 0x45 && b(2) === 0xdf && b(3) === 0xa3) return "webm";
  if (text(4, "ftyp")) return "mp4";
  return null;
}
