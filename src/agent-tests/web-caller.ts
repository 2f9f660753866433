// The simulated caller's side of a voice-mode test run (docs/agent-tests.md, "Voice mode"): the
// web-call protocol as a browser speaks it (docs/calls.md, "Web calls: the socket protocol"), from
// inside the worker. A microphone sends one 20 ms frame of 16 kHz PCM every 20 ms, the caller's line
// while it has one to say and silence otherwise (a browser keeps its microphone open, and the call's
// turn detection and streaming transcription count that silence); the agent's audio is "played" in
// real time, each mark echoed when playback reaches it; the session's status, transcript lines and
// end are kept. No timing is measured here: the call's own trace is the run's latency.
import { FRAME_MS, pcm16ToBytes } from "../calls/codec";
import { WEB_CALL_RATE } from "../calls/transports";

/** The part of a WebSocket the caller uses (the Workers WebSocket has it). */
export interface CallerSocket {
  send(data: string | ArrayBuffer | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close" | "error", listener: (event: unknown) => void): void;
}

/** Samples in one frame of the microphone. */
export const MIC_FRAME = (WEB_CALL_RATE * FRAME_MS) / 1000;

/** How often a wait looks at the clock when nothing arrives (playback ends with no message). */
const POLL_MS = 20;

interface Line {
  samples: Int16Array;
  at: number;
  done(endedAt: number): void;
}

export class WebCaller {
  /** The session's transcript lines (`{"type":"transcript"}`), in order. */
  readonly heard: Array<{ role: "agent" | "user"; text: string }> = [];
  /** The session said the call is in progress (it takes audio from then on). */
  live = false;
  /** Marks received: the session sends one after each reply's last audio. */
  marks = 0;
  /** Binary messages of agent audio received, and when the last one came (epoch ms). */
  audioMessages = 0;
  lastAudioAt = 0;
  /** Why the session ended the call (`{"type":"ended"}`), once it did. */
  endedReason: string | null = null;
  closed = false;
  private playbackEnds = 0;
  private line: Line | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiters = new Set<() => void>();

  constructor(private readonly socket: CallerSocket) {
    socket.addEventListener("message", (e) => this.receive(e.data));
    const gone = () => {
      this.closed = true;
      this.stop();
      this.changed();
    };
    socket.addEventListener("close", gone);
    socket.addEventListener("error", gone);
    this.tick();
  }

  /** The call is over for the caller: the session ended it, or the socket closed. */
  get gone(): boolean {
    return this.closed || this.endedReason !== null;
  }

  /** The agent's audio received so far has played. */
  playedOut(now = Date.now()): boolean {
    return this.playbackEnds <= now;
  }

  /**
   * Says `samples` (16 kHz) through the microphone, in real time; resolves with when its last frame
   * was sent (epoch ms), or at once when the socket is gone.
   */
  say(samples: Int16Array): Promise<number> {
    if (this.line) throw new Error("the caller is already speaking");
    if (this.closed) return Promise.resolve(Date.now());
    return new Promise((done) => {
      this.line = { samples, at: 0, done };
    });
  }

  /** True once `holds()` does, false when `until` (epoch ms) passes first or the socket closes without it. */
  async waitFor(holds: () => boolean, until: number): Promise<boolean> {
    for (;;) {
      if (holds()) return true;
      const left = until - Date.now();
      if (left <= 0 || this.closed) return holds();
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, POLL_MS));
        this.waiters.add(wake);
      });
    }
  }

  /** Hangs up as a browser does (`{"type":"hangup"}`); the session ends the call and closes the socket. */
  hangup(): void {
    this.send(JSON.stringify({ type: "hangup" }));
  }

  /** Stops the microphone (and a line being said); the socket is left to the session to close. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const line = this.line;
    this.line = null;
    line?.done(Date.now());
  }

  /** Closes the socket from this side (the session takes it as a hang-up). */
  close(): void {
    this.stop();
    try {
      this.socket.close(1000, "caller done");
    } catch {
      // already closed
    }
  }

  /** One frame every FRAME_MS, never a burst to catch up: the session stamps each frame with its arrival. */
  private tick = (): void => {
    if (this.closed) return;
    const sent = Date.now();
    this.send(pcm16ToBytes(this.nextFrame(sent)));
    this.timer = setTimeout(this.tick, Math.max(0, sent + FRAME_MS - Date.now()));
  };

  private nextFrame(now: number): Int16Array {
    const frame = new Int16Array(MIC_FRAME);
    const line = this.line;
    if (!line) return frame;
    frame.set(line.samples.subarray(line.at, line.at + MIC_FRAME));
    line.at += MIC_FRAME;
    if (line.at >= line.samples.length) {
      this.line = null;
      line.done(now);
    }
    return frame;
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") {
      const bytes = data instanceof ArrayBuffer ? data.byteLength : ArrayBuffer.isView(data) ? data.byteLength : 0;
      const now = Date.now();
      this.audioMessages++;
      this.lastAudioAt = now;
      this.playbackEnds = Math.max(this.playbackEnds, now) + (bytes / 2 / WEB_CALL_RATE) * 1000;
      this.changed();
      return;
    }
    let msg: { type?: unknown; status?: unknown; role?: unknown; text?: unknown; name?: unknown; reason?: unknown };
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (msg.type === "status" && msg.status === "in-progress") this.live = true;
    else if (msg.type === "transcript" && (msg.role === "agent" || msg.role === "user") && typeof msg.text === "string")
      this.heard.push({ role: msg.role, text: msg.text });
    else if (msg.type === "mark" && typeof msg.name === "string") {
      this.marks++;
      const name = msg.name;
      // Echoed when playback reaches it, as a browser's player does.
      setTimeout(() => this.send(JSON.stringify({ type: "mark", name })), Math.max(0, this.playbackEnds - Date.now()));
    } else if (msg.type === "clear") this.playbackEnds = Date.now();
    else if (msg.type === "ended") this.endedReason = typeof msg.reason === "string" ? msg.reason : "ended";
    this.changed();
  }

  private send(data: string | Uint8Array): void {
    if (this.closed) return;
    try {
      this.socket.send(data);
    } catch {
      // closing under us: the close event follows
    }
  }

  private changed(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
