// Audio for live calls: G.711 μ-law (Twilio Media Streams: 8 kHz mono, 20 ms = 160 bytes per
// frame), 16-bit PCM (web calls and the providers), resampling between them, and loudness.
// Runs the same in workerd, Node and the browser: typed arrays only, no Buffer.

export const TELEPHONY_RATE = 8_000;
/** Frame length for both transports. */
export const FRAME_MS = 20;

const BIAS = 0x84;
const CLIP = 32_635;

/** One 16-bit sample to a μ-law byte (ITU-T G.711). */
export function linearToMulaw(sample: number): number {
  let s = Math.max(-32_768, Math.min(32_767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

const DECODE = new Int16Array(256);
for (let i = 0; i < 256; i++) {
  const u = ~i & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  DECODE[i] = u & 0x80 ? -magnitude : magnitude;
}

/** μ-law silence (the code for 0). */
export const MULAW_SILENCE = linearToMulaw(0);

export function mulawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE[bytes[i] as number] as number;
  return out;
}

export function mulawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = linearToMulaw(samples[i] as number);
  return out;
}

/** Linear-interpolation resampling; averages the source when shrinking, so 24 kHz → 8 kHz does not alias badly. */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to || samples.length === 0) return samples.slice();
  const outN = Math.round((samples.length * to) / from);
  const out = new Int16Array(outN);
  const step = from / to;
  const last = samples.length - 1;
  for (let i = 0; i < outN; i++) {
    const x = i * step;
    if (step > 1) {
      // Box filter over the source samples this output sample covers.
      const start = Math.floor(x);
      const end = Math.min(last, Math.floor(x + step));
      let sum = 0;
      for (let j = start; j <= end; j++) sum += samples[j] as number;
      out[i] = Math.round(sum / (end - start + 1));
    } else {
      const i0 = Math.min(Math.floor(x), last);
      const i1 = Math.min(i0 + 1, last);
      const f = x - i0;
      out[i] = Math.round((samples[i0] as number) + ((samples[i1] as number) - (samples[i0] as number)) * f);
    }
  }
  return out;
}

/** Root-mean-square loudness of 16-bit samples, 0 to 32,768. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i] as number) ** 2;
  return Math.sqrt(sum / samples.length);
}

/** Little-endian 16-bit PCM bytes to samples (copies, so odd offsets are fine). */
export function pcm16FromBytes(bytes: Uint8Array): Int16Array {
  const n = bytes.length >> 1;
  const out = new Int16Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
  for (let i = 0; i < n; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

export function pcm16ToBytes(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] as number, true);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Splits into frames of `size`; the last one is padded with `fill`. */
export function frames<T extends Uint8Array | Int16Array>(data: T, size: number, fill = 0): T[] {
  const out: T[] = [];
  for (let at = 0; at < data.length; at += size) {
    const chunk = data.slice(at, at + size) as T;
    if (chunk.length < size) {
      const padded = new (data.constructor as new (n: number) => T)(size);
      padded.fill(fill);
      padded.set(chunk as never);
      out.push(padded);
    } else out.push(chunk);
  }
  return out;
}
