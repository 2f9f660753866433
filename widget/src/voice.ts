// The voice side: a web call (docs/calls.md) from the browser. The microphone is captured with
// an AudioWorklet (a ScriptProcessor where worklets cannot load, e.g. a page whose CSP refuses
// blob: scripts), resampled to 16 kHz PCM16 and sent in 20 ms frames; the agent's PCM is
// scheduled gap-free, marks are echoed when playback reaches them, `clear` drops what is queued.
// The widget and the dashboard's agent page (./agent-console.ts) both talk through it.
import type { WebCall } from "./api";
import { FrameBuffer, floatToPcm16, pcm16ToFloat, resample, WIRE_RATE } from "./pcm";

export type CallState = "starting" | "connecting" | "live" | "ended" | "failed";

/** What a call's state reads as, in the widget and the dashboard's talk panel. */
export const CALL_STATE_LABELS: Record<CallState, string> = {
  starting: "Allow the microphone to start…",
  connecting: "Connecting…",
  live: "Connected. Speak now.",
  ended: "Call ended.",
  failed: "The call could not be started.",
};

export interface CallListener {
  state(state: CallState, detail?: string): void;
  transcript(role: "agent" | "user", text: string): void;
  speaking(agent: boolean): void;
  /** The microphone's level, 0 to 1, about every 20 ms while the call is live (muted or not). */
  level?(value: number): void;
}

/**
 * Who opens the call: answers the one-time socket URL. A refusal may carry `hint` (shown as it is)
 * or `status` (429: "too many calls").
 */
export type OpenCall = () => Promise<Pick<WebCall, "url">>;

const WORKLET = `class C extends AudioWorkletProcessor{constructor(){super();this.b=[];this.n=0}process(i){const c=i[0]&&i[0][0];if(c){this.b.push(c.slice(0));this.n+=c.length;if(this.n>=sampleRate/50){const o=new Float32Array(this.n);let k=0;for(const x of this.b){o.set(x,k);k+=x.length}this.port.postMessage(o,[o.buffer]);this.b=[];this.n=0}}return true}}registerProcessor("sw-capture",C)`;

type AudioContextClass = typeof AudioContext;

export class VoiceCall {
  private ctx: AudioContext | null = null;
  private stream: MediaStream | null = null;
  private ws: WebSocket | null = null;
  private playAt = 0;
  private readonly sources = new Set<AudioBufferSourceNode>();
  private readonly marks = new Map<string, number>();
  private readonly frames = new FrameBuffer();
  private ticker = 0;
  private wasSpeaking = false;
  private done = false;
  private muted = false;

  constructor(private readonly listener: CallListener) {}

  /** Call from a click (the audio context needs the user's gesture). */
  async start(open: OpenCall): Promise<void> {
    this.listener.state("starting");
    const Ctx = (window.AudioContext ?? (window as unknown as { webkitAudioContext?: AudioContextClass }).webkitAudioContext) as
      | AudioContextClass
      | undefined;
    if (!Ctx || !navigator.mediaDevices?.getUserMedia) return this.fail("This browser cannot make voice calls.");
    this.ctx = new Ctx();
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
      });
    } catch {
      return this.fail("Microphone access was denied. Allow it in the browser to talk.");
    }
    if (this.done) return this.cleanup();
    let call: Pick<WebCall, "url">;
    try {
      call = await open();
    } catch (err) {
      console.warn(`[ServiceWidget] voice call refused: ${(err as Error).message}`);
      const { status, hint } = err as { status?: number; hint?: string };
      return this.fail(hint ?? (status === 429 ? "Too many calls. Try again in a minute." : "The call could not be started."));
    }
    if (this.done) return this.cleanup();
    this.listener.state("connecting");
    const ws = new WebSocket(call.url);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => void this.capture();
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = () => this.finish();
    ws.onerror = () => undefined; // onclose follows
  }

  /** Muted, the call goes on and the agent hears silence (the level still shows). */
  setMuted(muted: boolean): void {
    this.muted = muted;
  }

  hangup(): void {
    if (this.done) return;
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: "hangup" }));
    this.finish();
  }

  private fail(message: string): void {
    this.done = true;
    this.cleanup();
    this.listener.state("failed", message);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    this.listener.state("ended");
  }

  private cleanup(): void {
    clearInterval(this.ticker);
    for (const timer of this.marks.values()) clearTimeout(timer);
    this.marks.clear();
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.stream = null;
    const ws = this.ws;
    this.ws = null;
    if (ws && ws.readyState <= WebSocket.OPEN) {
      // Let a hangup message leave before the socket closes.
      setTimeout(() => ws.close(1000, "hangup"), 100);
    }
    this.ctx?.close().catch(() => undefined);
    this.ctx = null;
    this.listener.speaking(false);
  }

  private async capture(): Promise<void> {
    const ctx = this.ctx;
    const stream = this.stream;
    if (!ctx || !stream) return;
    await ctx.resume().catch(() => undefined);
    const source = ctx.createMediaStreamSource(stream);
    const mute = ctx.createGain();
    mute.gain.value = 0;
    mute.connect(ctx.destination);
    const onSamples = (samples: Float32Array) => {
      const ws = this.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) return;
      if (this.listener.level) {
        let sum = 0;
        for (const v of samples) sum += v * v;
        this.listener.level(Math.min(1, Math.sqrt(sum / Math.max(1, samples.length)) * 4));
      }
      for (const frame of this.frames.push(resample(samples, ctx.sampleRate, WIRE_RATE)))
        ws.send(floatToPcm16(this.muted ? frame.fill(0) : frame));
    };
    try {
      const url = URL.createObjectURL(new Blob([WORKLET], { type: "text/javascript" }));
      await ctx.audioWorklet.addModule(url);
      URL.revokeObjectURL(url);
      const node = new AudioWorkletNode(ctx, "sw-capture");
      node.port.onmessage = (e: MessageEvent<Float32Array>) => onSamples(e.data);
      source.connect(node).connect(mute);
    } catch {
      const node = ctx.createScriptProcessor(2048, 1, 1);
      node.onaudioprocess = (e) => onSamples(e.inputBuffer.getChannelData(0).slice());
      source.connect(node).connect(mute);
    }
    this.ticker = window.setInterval(() => {
      const speaking = Boolean(this.ctx && this.playAt > this.ctx.currentTime);
      if (speaking === this.wasSpeaking) return;
      this.wasSpeaking = speaking;
      this.listener.speaking(speaking);
    }, 200);
  }

  private receive(data: unknown): void {
    const ctx = this.ctx;
    if (!ctx) return;
    if (data instanceof ArrayBuffer) {
      const samples = pcm16ToFloat(data);
      if (samples.length === 0) return;
      const buffer = ctx.createBuffer(1, samples.length, WIRE_RATE);
      buffer.getChannelData(0).set(samples);
      const node = ctx.createBufferSource();
      node.buffer = buffer;
      node.connect(ctx.destination);
      const at = Math.max(ctx.currentTime + 0.05, this.playAt);
      node.start(at);
      this.playAt = at + buffer.duration;
      this.sources.add(node);
      node.onended = () => this.sources.delete(node);
      return;
    }
    let msg: { type?: string; status?: string; role?: string; text?: string; name?: string; reason?: string };
    try {
      msg = JSON.parse(String(data));
    } catch {
      return;
    }
    if (msg.type === "status" && msg.status === "in-progress") this.listener.state("live");
    else if (msg.type === "transcript" && (msg.role === "agent" || msg.role === "user") && msg.text)
      this.listener.transcript(msg.role, msg.text);
    else if (msg.type === "mark" && msg.name) this.mark(msg.name);
    else if (msg.type === "clear") this.clear();
    else if (msg.type === "ended") this.finish();
  }

  /** Echo the mark when the audio queued before it has played. */
  private mark(name: string): void {
    const ctx = this.ctx;
    const delay = ctx ? Math.max(0, this.playAt - ctx.currentTime) * 1000 : 0;
    const timer = window.setTimeout(() => this.sendMark(name), delay);
    this.marks.set(name, timer);
  }

  private sendMark(name: string): void {
    const timer = this.marks.get(name);
    if (timer !== undefined) clearTimeout(timer);
    this.marks.delete(name);
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: "mark", name }));
  }

  /** Barge-in: drop the agent's queued audio; its marks are reached now. */
  private clear(): void {
    for (const node of this.sources) {
      try {
        node.stop();
      } catch {
        // not started yet or already stopped
      }
    }
    this.sources.clear();
    this.playAt = 0;
    for (const name of [...this.marks.keys()]) this.sendMark(name);
  }
}
