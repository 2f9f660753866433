// The call's recording: a stereo WAV (left: the caller, right: the agent) at the transport's
// rate, written to the RECORDINGS bucket (R2) when the call ends. The agent's audio is placed
// where it was sent, queued behind audio still playing, and cut where a barge-in cleared it.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { type Call, calls } from "../db/schema";

const MAX_SECONDS_NARROWBAND = 600;
const MAX_SECONDS_WIDEBAND = 300;

export const recordingKey = (call: Pick<Call, "organizationId" | "id">) => `recordings/${call.organizationId}/${call.id}.wav`;

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

  wav(): { bytes: Uint8Array; seconds: number } {
    const frames = Math.max(this.callerAt, this.agentEnd);
    const out = new Uint8Array(44 + frames * 4);
    const view = new DataView(out.buffer);
    const ascii = (at: number, s: string) => {
      for (let i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i));
    };
    ascii(0, "RIFF");
    view.setUint32(4, 36 + frames * 4, true);
    ascii(8, "WAVE");
    ascii(12, "fmt ");
    view.setUint32(16, 16, true);
    view.setUint16(20, 1, true);
    view.setUint16(22, 2, true);
    view.setUint32(24, this.rate, true);
    view.setUint32(28, this.rate * 4, true);
    view.setUint16(32, 4, true);
    view.setUint16(34, 16, true);
    ascii(36, "data");
    view.setUint32(40, frames * 4, true);
    let i = 0;
    for (const frame of this.callerFrames) for (const sample of frame) view.setInt16(44 + i++ * 4, sample, true);
    for (const part of this.agentParts)
      part.samples.forEach((sample, j) => {
        view.setInt16(46 + (part.start + j) * 4, sample, true);
      });
    return { bytes: out, seconds: Math.round((frames / this.rate) * 10) / 10 };
  }

  async save(bucket: R2Bucket, db: Db, call: Pick<Call, "organizationId" | "id">): Promise<void> {
    const { bytes, seconds } = this.wav();
    if (seconds === 0) return;
    const key = recordingKey(call);
    await bucket.put(key, bytes, { httpMetadata: { contentType: "audio/wav" } });
    await db
      .update(calls)
      .set({ recordingKey: key, recordingSeconds: Math.round(seconds) })
      .where(eq(calls.id, call.id));
  }
}
