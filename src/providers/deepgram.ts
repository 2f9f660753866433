// Deepgram's live transcription over a WebSocket, behind the streaming STT port. The model name
// picks the API: `flux…` is Flux on `/v2/listen` (turn events: StartOfTurn, Update, EagerEndOfTurn,
// TurnResumed, EndOfTurn), anything else is Nova on `/v1/listen` (interim and final Results,
// UtteranceEnd). The wire format is Deepgram's: the key in `Authorization: Token <key>`, the
// options in the query, audio as binary frames of little-endian 16-bit PCM, control messages as
// JSON text (`Finalize`, `CloseStream`, `KeepAlive`; `ForceEndTurn` on Flux).
//
// Failures: a refused upgrade (401, 429, 5xx…), a timeout or an unreachable host reject `open`
// with a ProviderError, as every adapter's calls do; once the stream is open, a failure (a close
// the adapter did not ask for, such as 1008 or 1011, or Deepgram's `{"type": "Error"}` message) is
// one `error` event, the stream's last: the stream is then closed. Messages the adapter does not
// understand (not JSON, unknown types, missing fields) are ignored.
//
// The socket is opened as every provider's is (./socket.ts: the Workers fetch upgrade by default); the
// constructor takes another `connect` for Node (tests use the `ws` package: test/support/ws-connect.ts), or
// for Workers AI's copies of these models (./workers-ai.ts: the `env.AI` binding, no Deepgram key).
import { canceled } from "./http";
import { openSocket, type ProviderSocket, type SocketConnector, workersConnect } from "./socket";
import type { StreamingSttProvider, SttStream, SttStreamEvent, SttStreamOptions } from "./types";

export interface DeepgramOptions {
  /** How the socket is opened; Workers' fetch upgrade by default. */
  connect?: SocketConnector;
  /** Time allowed for the upgrade, and for the provider's last results after `close()`. */
  timeoutMs?: number;
  /** A `KeepAlive` after this long without audio (Deepgram closes a stream idle for 10 s). */
  keepAliveMs?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The bytes of 16-bit samples, little-endian whatever the platform's order. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function pcmBytes(pcm: Int16Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const out = new Uint8Array(pcm.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < pcm.length; i++) view.setInt16(i * 2, pcm[i] as number, true);
  return out;
}

export const isFluxModel = (model: string) => model.startsWith("flux");

/** The `/v1/listen` (Nova) or `/v2/listen` (Flux) URL for these options, under `baseUrl` (`https://api.deepgram.com`). */
export function listenUrl(baseUrl: string, opts: SttStreamOptions): string {
  const base = baseUrl.replace(/^ws(s?):/, "http$1:").replace(/\/+$/, "");
  const flux = isFluxModel(opts.model);
  const q = new URLSearchParams({ model: opts.model, encoding: opts.encoding, sample_rate: String(opts.sampleRate) });
  if (flux) {
    if (opts.eotThreshold !== undefined) q.set("eot_threshold", String(opts.eotThreshold));
    if (opts.eagerEotThreshold !== undefined) q.set("eager_eot_threshold", String(opts.eagerEotThreshold));
    if (opts.eotTimeoutMs !== undefined) q.set("eot_timeout_ms", String(opts.eotTimeoutMs));
  } else {
    q.set("channels", "1");
    q.set("interim_results", "true");
    q.set("punctuate", "true");
    if (opts.language) q.set("language", opts.language);
    if (opts.endpointingMs !== undefined) q.set("endpointing", String(opts.endpointingMs));
    if (opts.utteranceEndMs !== undefined) q.set("utterance_end_ms", String(opts.utteranceEndMs));
  }
  return `${base}/${flux ? "v2" : "v1"}/listen?${q}`;
}

export class Deepgram implements StreamingSttProvider {
  readonly name = "deepgram";
  private readonly connect: SocketConnector;
  private readonly timeoutMs: number;
  private readonly keepAliveMs: number;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    opts: DeepgramOptions = {},
  ) {
    this.connect = opts.connect ?? workersConnect;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.keepAliveMs = opts.keepAliveMs ?? 5_000;
  }

  async open(opts: SttStreamOptions, onEvent: (e: SttStreamEvent) => void): Promise<SttStream> {
    // No retry: a caller on the line cannot wait through backoff.
    const socket = await openSocket(
      this.name,
      this.connect,
      listenUrl(this.baseUrl, opts),
      { Authorization: `Token ${this.apiKey}` },
      { timeoutMs: this.timeoutMs, retries: 0 },
      opts.signal,
    );
    if (opts.signal?.aborted) {
      socket.close(1000, "cancelled");
      throw canceled(this.name);
    }
    return new DeepgramStream(socket, opts, onEvent, { timeoutMs: this.timeoutMs, keepAliveMs: this.keepAliveMs });
  }
}

class DeepgramStream implements SttStream {
  private state: "open" | "closing" | "closed" = "open";
  private samples = 0;
  /** Nova's `Metadata.duration`: the seconds Deepgram says it received. */
  private reported: number | undefined;
  private readonly flux: boolean;
  private readonly ended: Promise<void>;
  private endedResolve!: () => void;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private lastSent = Date.now();

  constructor(
    private readonly socket: ProviderSocket,
    private readonly opts: SttStreamOptions,
    private readonly onEvent: (e: SttStreamEvent) => void,
    private readonly timing: { timeoutMs: number; keepAliveMs: number },
  ) {
    this.flux = isFluxModel(opts.model);
    this.ended = new Promise((resolve) => {
      this.endedResolve = resolve;
    });
    socket.addEventListener("message", (e) => this.message(e.data));
    socket.addEventListener("close", (e) => this.closedBy(e.code, e.reason));
    socket.addEventListener("error", () => this.fail("the connection to deepgram failed"));
    opts.signal?.addEventListener("abort", () => this.abort(), { once: true });
    if (timing.keepAliveMs > 0) {
      this.keepAlive = setInterval(() => {
        if (this.state === "open" && Date.now() - this.lastSent >= timing.keepAliveMs) this.control("KeepAlive");
      }, timing.keepAliveMs);
    }
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  send(pcm: Int16Array): void {
    // An empty binary frame is Deepgram's old end-of-stream signal: never send one.
    if (this.state !== "open" || pcm.length === 0) return;
    this.samples += pcm.length;
    this.lastSent = Date.now();
    this.socket.send(pcmBytes(pcm));
  }

  finalize(): void {
    if (this.state === "open") this.control(this.flux ? "ForceEndTurn" : "Finalize");
  }

  async close(): Promise<number> {
    if (this.state === "open") {
      this.state = "closing";
      this.control("CloseStream");
      // Deepgram sends what is left, then Metadata, then closes; past the timeout we close ourselves.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.ended, new Promise<void>((r) => (timer = setTimeout(r, this.timing.timeoutMs)))]);
      clearTimeout(timer);
      this.finish();
    } else if (this.state === "closing") {
      await this.ended;
    }
    return this.reported ?? this.samples / this.opts.sampleRate;
  }

  private control(type: string) {
    try {
      this.socket.send(JSON.stringify({ type }));
      this.lastSent = Date.now();
    } catch {
      // a socket closing under us: its close event reports it
    }
  }

  private abort() {
    if (this.state === "closed") return;
    this.finish(1000, "cancelled");
  }

  /** Closes our side (idempotent) and stops everything; no event follows. */
  private finish(code = 1000, reason = "") {
    if (this.state === "closed") return;
    this.state = "closed";
    clearInterval(this.keepAlive);
    try {
      this.socket.close(code, reason);
    } catch {
      // already closed
    }
    this.endedResolve();
  }

  private emit(e: SttStreamEvent) {
    if (this.state !== "closed") this.onEvent(e);
  }

  private fail(message: string) {
    if (this.state === "closed") return;
    const expected = this.state === "closing";
    if (!expected) this.emit({ type: "error", message });
    this.finish(1011, "");
  }

  private closedBy(code: number, reason: string) {
    if (this.state === "closed") return;
    // After our CloseStream, a normal close is the end we asked for.
    if (this.state === "closing" && (code === 1000 || code === 1005)) return this.finish();
    this.fail(`deepgram closed the stream (${code}${reason ? ` ${reason.slice(0, 200)}` : ""})`);
  }

  private message(data: unknown) {
    let text: string;
    if (typeof data === "string") text = data;
    else return; // Deepgram sends JSON text only; binary frames are not ours to read
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObject(msg)) return;
    switch (msg.type) {
      case "Results": {
        const channel = msg.channel;
        const alt = isObject(channel) && Array.isArray(channel.alternatives) ? channel.alternatives[0] : undefined;
        const transcript = isObject(alt) ? str(alt.transcript) : undefined;
        if (transcript === undefined) return;
        if (msg.is_final === true) this.emit({ type: "final", text: transcript, speechFinal: msg.speech_final === true });
        else if (transcript !== "") this.emit({ type: "interim", text: transcript });
        return;
      }
      case "UtteranceEnd":
        return this.emit({ type: "utterance-end" });
      case "Metadata": {
        const duration = num(msg.duration);
        if (duration !== undefined) this.reported = duration;
        return;
      }
      case "TurnInfo":
        return this.turnInfo(msg);
      case "Error": {
        const code = str(msg.code) ?? "ERROR";
        const description = str(msg.description) ?? "no description";
        this.fail(`deepgram failed: ${code}: ${description.slice(0, 200)}`);
        return;
      }
      default:
        // Connected, SpeechStarted and anything newer: nothing for the port
        return;
    }
  }

  private turnInfo(msg: Record<string, unknown>) {
    const text = str(msg.transcript);
    const confidence = num(msg.end_of_turn_confidence);
    switch (msg.event) {
      case "StartOfTurn":
        return this.emit({ type: "start-of-turn" });
      case "Update":
        if (text !== undefined) this.emit({ type: "update", text });
        return;
      case "EagerEndOfTurn":
        if (text !== undefined) this.emit({ type: "eager-end-of-turn", text, ...(confidence !== undefined && { confidence }) });
        return;
      case "TurnResumed":
        return this.emit({ type: "turn-resumed" });
      case "EndOfTurn":
        if (text !== undefined) this.emit({ type: "end-of-turn", text, ...(confidence !== undefined && { confidence }) });
        return;
      default:
        return;
    }
  }
}
