// The telephony sandbox's side of a bidirectional Twilio Media Stream (<Connect><Stream>): a
// WebSocket client to the worker that sends `connected`, `start`, a `media` frame every 20 ms for
// the whole call (the callee's speech, or μ-law silence), `dtmf` key presses, `mark` echoes and `stop`, and plays the
// worker's `media` in real time at 8 kHz, honouring `mark` and `clear` as Twilio does. It also
// measures the call for tests and benches (the fields of SandboxCall).
//
// Frames are paced by a drift-free clock: frame k is due k × 20 ms after `start`; a late wake-up
// sends every frame that is due, and frames sent more than LATE_MS after their due time are counted
// (the sandbox's own lag). Playback runs on the same clock: each frame tick plays 160 bytes.
import { createHmac, randomBytes } from "node:crypto";
import WebSocket from "ws";
import { FRAME_MS, MULAW_SILENCE, TELEPHONY_RATE } from "../../src/calls/codec";
import type { SandboxCall } from "./telephony";

export const FRAME_BYTES = (TELEPHONY_RATE * FRAME_MS) / 1000;
/** The agent finished speaking: its playback buffer is empty and no audio came for this long. */
export const TURN_END_MS = 250;
/** A frame sent this long after its due time is late. */
export const LATE_MS = 40;
const HANDSHAKE_TIMEOUT_MS = 10_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const SILENCE = Buffer.alloc(FRAME_BYTES, MULAW_SILENCE);

/** Milliseconds since the epoch, with sub-millisecond precision and a monotonic clock. */
export const clock = () => performance.timeOrigin + performance.now();

/** base64(HMAC-SHA1(authToken, url + each param name and value, sorted by name)): Twilio's X-Twilio-Signature. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string | string[]> = {}): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name] ?? "";
    for (const v of Array.isArray(value) ? [...new Set(value)].sort() : [value]) data += name + v;
  }
  return createHmac("sha1", authToken).update(Buffer.from(data, "utf8")).digest("base64");
}

export interface StreamHooks {
  /** `start` was sent: the callee is on the line. */
  started(): void;
  agentStarted(): void;
  agentFinished(): void;
  /** The worker's audio as it arrives (μ-law), for a callee that records it (amd.ts). */
  heard?(bytes: Uint8Array, at: number): void;
  /** The stream ended without the sandbox ending it: the worker refused or closed it, or it never connected. */
  lost(endedBy: "stream-refused" | "stream-closed" | "network"): void;
}

type Queued = { kind: "audio"; bytes: Buffer; offset: number } | { kind: "mark"; name: string };

interface CalleeSpeech {
  text: string;
  audio: Uint8Array;
  offset: number;
  bargeIn: boolean;
  said?: SandboxCall["said"][number];
  done(): void;
}

type AgentUtterance = SandboxCall["agentUtterances"][number];

export class MediaStream {
  readonly streamSid = `MZ${randomBytes(16).toString("hex")}`;
  private ws: WebSocket | undefined;
  private state: "idle" | "connecting" | "open" | "closed" = "idle";
  private seq = 0;
  private chunk = 0;
  private frameIndex = 0;
  private startedAt = 0; // performance.now() of `start`
  private timer: NodeJS.Timeout | undefined;
  private playback: Queued[] = [];
  private speech: CalleeSpeech[] = [];
  private heardBytes = 0;
  private agent: AgentUtterance | undefined;
  private playedInUtterance = false;
  private dry = false;
  /** Since a `clear`, until the next audio plays: the quiet was asked for, not a gap. */
  private quietAfterClear = false;
  private lastArrival = 0;
  private lastPlayed = 0;
  private latencyFrom: number | undefined;

  constructor(
    private readonly call: SandboxCall,
    private readonly opts: { url: string; accountSid: string; authToken: string; customParameters: Record<string, string> },
    private readonly hooks: StreamHooks,
  ) {}

  get agentSpeaking(): boolean {
    return this.agent !== undefined;
  }

  connect(): void {
    if (this.state !== "idle") return;
    this.state = "connecting";
    const url = new URL(this.opts.url);
    if (url.search) {
      // Twilio drops the query string of a Stream url: values must travel as <Parameter>s.
      this.call.errors.push(`the Stream url's query string (${url.search}) was dropped, as Twilio does: use <Parameter> elements`);
      url.search = "";
    }
    const target = url.toString();
    const ws = new WebSocket(target, {
      headers: { "x-twilio-signature": twilioSignature(this.opts.authToken, target), "user-agent": "Twilio.TmeWs/1.0" },
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      perMessageDeflate: false,
    });
    this.ws = ws;
    ws.on("unexpected-response", (_req, res) => {
      this.call.rejectStatus = res.statusCode;
      this.call.closeReason = `HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ""}`;
      this.call.errors.push(`the worker refused the media stream: ${this.call.closeReason}`);
      res.resume();
      this.lose("stream-refused");
    });
    ws.on("open", () => this.begin());
    ws.on("message", (data, isBinary) => this.receive(data as Buffer, isBinary));
    ws.on("error", (err) => {
      if (this.state !== "closed") this.call.errors.push(`media stream: ${err.message}`);
    });
    ws.on("close", (code, reason) => {
      if (this.state === "closed") return;
      const opened = this.state === "open";
      this.call.closeCode = code;
      this.call.closeReason = reason.toString("utf8");
      this.lose(opened ? "stream-closed" : "network");
    });
  }

  /** Queues the callee's speech behind anything it is already saying. */
  play(text: string, audio: Uint8Array, opts: { bargeIn?: boolean } = {}): Promise<void> {
    if (this.state === "closed") return Promise.resolve();
    return new Promise((done) => this.speech.push({ text, audio, offset: 0, bargeIn: opts.bargeIn ?? false, done }));
  }

  /** The callee presses a key: Twilio's `dtmf` message (bidirectional streams only), recorded in `dtmfSent`. */
  sendDigit(digit: string): void {
    if (this.state !== "open") return;
    this.send({ event: "dtmf", streamSid: this.streamSid, sequenceNumber: String(++this.seq), dtmf: { track: "inbound_track", digit } });
    this.call.dtmfSent.push({ digit, at: clock() });
  }

  /** The call is over: sends `stop` and closes the socket (1000). */
  stop(): void {
    if (this.state === "open") {
      this.send({
        event: "stop",
        sequenceNumber: String(++this.seq),
        streamSid: this.streamSid,
        stop: { accountSid: this.opts.accountSid, callSid: this.call.sid },
      });
    }
    const ws = this.ws;
    const wasConnecting = this.state === "connecting";
    this.halt();
    if (!ws) return;
    if (wasConnecting) ws.terminate();
    else ws.close(1000, "");
  }

  // -------------------------------------------------------------------------------------------

  private send(message: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Stops the clock and settles the callee's pending speech. */
  private halt(): void {
    this.state = "closed";
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const at = clock();
    for (const s of this.speech) {
      if (s.said && s.said.endAt === undefined) {
        s.said.endAt = at;
        s.said.cut = true;
      }
      s.done();
    }
    this.speech = [];
    if (this.agent && this.agent.endAt === undefined) this.agent.endAt = at;
    this.agent = undefined;
  }

  private lose(endedBy: "stream-refused" | "stream-closed" | "network"): void {
    if (this.state === "closed") return;
    const ws = this.ws;
    const connecting = this.state === "connecting";
    this.halt();
    if (connecting) ws?.terminate();
    this.hooks.lost(endedBy);
  }

  private begin(): void {
    if (this.state !== "connecting") return;
    this.state = "open";
    this.send({ event: "connected", protocol: "Call", version: "1.0.0" });
    this.send({
      event: "start",
      sequenceNumber: String(++this.seq),
      start: {
        accountSid: this.opts.accountSid,
        streamSid: this.streamSid,
        callSid: this.call.sid,
        tracks: ["inbound"],
        customParameters: this.opts.customParameters,
        mediaFormat: { encoding: "audio/x-mulaw", sampleRate: TELEPHONY_RATE, channels: 1 },
      },
      streamSid: this.streamSid,
    });
    this.call.streamSid = this.streamSid;
    this.startedAt = performance.now();
    this.hooks.started();
    this.tick();
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    const now = performance.now();
    // A wake-up this late runs a burst of overdue steps before the socket is read again.
    const wokeLate = now - (this.startedAt + this.frameIndex * FRAME_MS) > LATE_MS;
    while (this.state === "open" && this.startedAt + this.frameIndex * FRAME_MS <= now) {
      if (now - (this.startedAt + this.frameIndex * FRAME_MS) > LATE_MS) this.call.lateFrames++;
      this.frame(wokeLate);
      this.frameIndex++;
    }
    if (this.state !== "open") return;
    this.timer = setTimeout(this.tick, Math.max(0, this.startedAt + this.frameIndex * FRAME_MS - performance.now()));
  };

  /** One 20 ms step: send the callee's frame, play the worker's (`late`: a step of a wake-up the sandbox itself was late for). */
  private frame(late: boolean): void {
    const at = clock();
    this.send({
      event: "media",
      sequenceNumber: String(++this.seq),
      media: {
        track: "inbound",
        chunk: String(++this.chunk),
        timestamp: String(this.frameIndex * FRAME_MS),
        payload: this.calleeFrame(at).toString("base64"),
      },
      streamSid: this.streamSid,
    });
    this.call.framesSent++;
    this.playFrame(at, late);
  }

  private calleeFrame(at: number): Buffer {
    const s = this.speech[0];
    if (!s) return SILENCE;
    if (!s.said) {
      s.said = { text: s.text, startAt: at };
      this.call.said.push(s.said);
      if (s.bargeIn) this.call.bargeIn = { at };
    }
    const out = Buffer.from(SILENCE);
    out.set(s.audio.subarray(s.offset, s.offset + FRAME_BYTES));
    s.offset += FRAME_BYTES;
    if (s.offset >= s.audio.length) {
      s.said.endAt = at;
      this.latencyFrom = at;
      this.speech.shift();
      s.done();
    }
    return out;
  }

  /**
   * Plays one frame of the worker's audio. The steps of a late wake-up do not count the playback
   * running dry: after a stall of this process, the overdue steps run in one burst before the
   * worker's frames that arrived meanwhile are read from the socket, so the buffer looks empty
   * although the audio is there. That gap is the sandbox's, not
   * the worker's; a real phone's buffer fills while the phone is busy.
   */
  private playFrame(at: number, late: boolean): void {
    let need = FRAME_BYTES;
    this.echoReachedMarks();
    while (need > 0) {
      const head = this.playback[0];
      if (head?.kind !== "audio") break;
      const take = Math.min(need, head.bytes.length - head.offset);
      head.offset += take;
      need -= take;
      if (head.offset >= head.bytes.length) {
        this.playback.shift();
        this.echoReachedMarks();
      }
    }
    const played = need < FRAME_BYTES;
    if (!this.agent) return;
    if (played) {
      this.quietAfterClear = false;
      this.lastPlayed = at;
      this.playedInUtterance = true;
      if (this.dry) {
        this.call.underruns++;
        this.dry = false;
      }
      return;
    }
    if (this.playedInUtterance && !late && !this.quietAfterClear) this.dry = true;
    if (at - Math.max(this.lastArrival, this.lastPlayed) >= TURN_END_MS) {
      this.agent.endAt = this.playedInUtterance ? this.lastPlayed + FRAME_MS : at;
      this.agent = undefined;
      this.dry = false;
      this.playedInUtterance = false;
      this.hooks.agentFinished();
    }
  }

  private echoReachedMarks(): void {
    while (this.playback[0]?.kind === "mark") {
      const mark = this.playback.shift() as { kind: "mark"; name: string };
      this.echoMark(mark.name);
    }
  }

  private echoMark(name: string): void {
    this.send({ event: "mark", sequenceNumber: String(++this.seq), streamSid: this.streamSid, mark: { name } });
    this.call.marksEchoed++;
  }

  private receive(data: Buffer, isBinary: boolean): void {
    if (this.state !== "open") return;
    if (isBinary) {
      this.call.errors.push("malformed message: a binary WebSocket frame (Twilio expects JSON text)");
      return;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(data.toString("utf8"));
    } catch {
      this.call.errors.push(`malformed message: not JSON: ${data.toString("utf8").slice(0, 80)}`);
      return;
    }
    if (typeof msg !== "object" || msg === null || typeof (msg as { event?: unknown }).event !== "string") {
      this.call.errors.push(`malformed message: no "event": ${data.toString("utf8").slice(0, 80)}`);
      return;
    }
    const m = msg as { event: string; streamSid?: unknown; media?: { payload?: unknown }; mark?: { name?: unknown } };
    if (!["media", "mark", "clear"].includes(m.event)) return; // Twilio ignores events it does not know
    if (m.streamSid !== this.streamSid) {
      this.call.errors.push(`malformed message: ${m.event} for streamSid ${String(m.streamSid)}, not this stream's ${this.streamSid}`);
      return;
    }
    if (m.event === "media") {
      const payload = m.media?.payload;
      if (typeof payload !== "string" || payload.length % 4 !== 0 || !BASE64.test(payload)) {
        this.call.errors.push("malformed message: media without a base64 payload");
        return;
      }
      const bytes = Buffer.from(payload, "base64");
      if (bytes.length > 0) this.hear(bytes);
    } else if (m.event === "mark") {
      const name = m.mark?.name;
      if (typeof name !== "string") {
        this.call.errors.push("malformed message: mark without a name");
        return;
      }
      this.playback.push({ kind: "mark", name });
    } else {
      this.clear();
    }
  }

  private hear(bytes: Buffer): void {
    const at = clock();
    this.heardBytes += bytes.length;
    this.call.heardFrames = Math.floor(this.heardBytes / FRAME_BYTES);
    this.playback.push({ kind: "audio", bytes, offset: 0 });
    this.lastArrival = at;
    if (this.latencyFrom !== undefined) {
      this.call.latencies.push(Math.round(at - this.latencyFrom));
      this.latencyFrom = undefined;
    }
    if (!this.agent) {
      this.agent = { firstFrameAt: at, lastFrameAt: at, frames: 0, cleared: false };
      this.call.agentUtterances.push(this.agent);
      this.hooks.agentStarted();
    }
    this.agent.lastFrameAt = at;
    this.agent.frames += bytes.length / FRAME_BYTES;
    this.hooks.heard?.(bytes, at);
  }

  /** `clear`: the buffered audio is dropped at once and every pending mark is echoed, as Twilio does. */
  private clear(): void {
    const at = clock();
    this.call.clears++;
    for (const item of this.playback) if (item.kind === "mark") this.echoMark(item.name);
    this.playback = [];
    // The silence a clear makes was asked for: audio after it is not a gap.
    this.dry = false;
    this.quietAfterClear = true;
    if (this.agent) this.agent.cleared = true;
    const b = this.call.bargeIn;
    if (b && b.clearAfterMs === undefined && at >= b.at) b.clearAfterMs = Math.round(at - b.at);
  }
}
