// Audio conversions of the web-call protocol (docs/calls.md): the microphone's float samples at
// the device rate become 16-bit little-endian PCM at 16 kHz; the agent's PCM becomes floats.

export const WIRE_RATE = 16_000;
/** 20 ms at 16 kHz: what the widget sends per binary message. */
export const FRAME_SAMPLES = 320;

/**
 * Resamples `input` (at `fromRate`) to `toRate` by averaging the source samples that fall in each
 * output sample (a box low-pass, enough for speech), or linear interpolation when upsampling.
 */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return input.slice();
  const ratio = fromRate / toRate;
  const length = Math.floor(input.length / ratio);
  const out = new Float32Array(length);
  if (ratio > 1) {
    for (let i = 0; i < length; i++) {
      const start = Math.floor(i * ratio);
      const end = Math.min(input.length, Math.floor((i + 1) * ratio));
      let sum = 0;
      for (let j = start; j < end; j++) sum += input[j] as number;
      out[i] = end > start ? sum / (end - start) : 0;
    }
  } else {
    for (let i = 0; i < length; i++) {
      const at = i * ratio;
      const j = Math.floor(at);
      const a = input[j] ?? 0;
      const b = input[j + 1] ?? a;
      out[i] = a + (b - a) * (at - j);
    }
  }
  return out;
}

/** Floats in [-1, 1] to 16-bit little-endian PCM bytes (clipped). */
export function floatToPcm16(samples: Float32Array): ArrayBuffer {
  const view = new DataView(new ArrayBuffer(samples.length * 2));
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] as number));
    view.setInt16(i * 2, s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff), true);
  }
  return view.buffer;
}

/** 16-bit little-endian PCM bytes to floats in [-1, 1]; an odd last byte is dropped. */
export function pcm16ToFloat(bytes: ArrayBuffer): Float32Array {
  const view = new DataView(bytes);
  const out = new Float32Array(Math.floor(bytes.byteLength / 2));
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 0x8000;
  return out;
}

/** Collects resampled audio and hands out whole frames of FRAME_SAMPLES. */
export class FrameBuffer {
  private pending = new Float32Array(0);

  push(samples: Float32Array): Float32Array[] {
    const joined = new Float32Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    const frames: Float32Array[] = [];
    let at = 0;
    for (; at + FRAME_SAMPLES <= joined.length; at += FRAME_SAMPLES) frames.push(joined.slice(at, at + FRAME_SAMPLES));
    this.pending = joined.slice(at);
    return frames;
  }
}
