// The telephony sandbox's answering-machine detection (Twilio's async AMD: MachineDetection with
// AsyncAmd=true) and the two callees that are not people: an answering machine and a fax. The
// verdict is POSTed to AsyncAmdStatusCallback, signed with X-Twilio-Signature like the status
// callbacks, with Twilio's parameters (CallSid, AccountSid, AnsweredBy, MachineDetectionDuration).
// By number (callee.ts): the machine plays its greeting (real speech, which the worker's STT
// transcribes), then a beep, then records what it hears; the fax plays its calling tone; any other
// callee is a person (`human`), except the silent one (`unknown`, as Twilio's silence timeout says).
// Timings:
// - person: `human` HUMAN_AFTER_MS after the stream started (Twilio: their "hello", then 1.2 s of quiet);
// - silent: `unknown` after SILENCE_TIMEOUT_MS (Twilio's MachineDetectionSilenceTimeout default);
// - fax: `fax` after FAX_AFTER_MS;
// - machine, `Enable`: `machine_start` once MACHINE_SPEECH_MS of its greeting played (Twilio's
//   MachineDetectionSpeechThreshold), or at the greeting's end if shorter; `DetectMessageEnd`:
//   `machine_end_beep` when the beep has played.
// What the machine recorded after its beep is transcribed once the call ended (the provider
// sandbox's transcription, which recognises the worker's own synthesized speech), so a test can
// check that the agent's message was left, and left after the beep. See docs/sandbox.md.
import { randomUUID } from "node:crypto";
import { mulawDecode, mulawEncode, TELEPHONY_RATE } from "../../src/calls/codec";
import { clock, twilioSignature } from "./media-stream";
import { API_VERSION, TwilioError } from "./phone-numbers";
import { buildWav } from "./wav";

export const HUMAN_AFTER_MS = 1_500;
export const SILENCE_TIMEOUT_MS = 5_000;
export const FAX_AFTER_MS = 1_500;
export const MACHINE_SPEECH_MS = 2_400;
/** The machine's greeting: one sentence of real speech, then the beep. */
export const GREETING = "Hi, you have reached Sam. Please leave a message after the tone.";
export const BEEP_MS = 500;
const BEEP_HZ = 1_000;
/** A fax's calling tone (CNG): 1,100 Hz for half a second, every three and a half seconds. */
const CNG_HZ = 1_100;
const CNG_ON_MS = 500;
const CNG_PERIOD_MS = 3_500;
const CALLBACK_TIMEOUT_MS = 15_000;

export type AmdMode = "Enable" | "DetectMessageEnd";
export type AnsweredBy = "human" | "machine_start" | "machine_end_beep" | "machine_end_silence" | "machine_end_other" | "fax" | "unknown";

/** What a call's detection did, on its SandboxCall (`amd`). Times are epoch ms. */
export interface SandboxAmd {
  mode: AmdMode;
  callbackUrl: string;
  answeredBy?: AnsweredBy;
  /** When the verdict's POST was sent, when the worker's answer came, and what it answered (or the error). */
  sentAt?: number;
  postedAt?: number;
  httpStatus?: number;
  error?: string;
}

/** What the machine did and heard, on its SandboxCall (`machine`): the greeting, the beep, then the recording. */
export interface SandboxMachine {
  greeting?: { startAt: number; endAt?: number };
  beep?: { startAt: number; endAt?: number };
  /** The agent's audio after the beep: first and last frame's arrival, 20 ms frames. */
  recording: { firstAt?: number; lastAt?: number; frames: number };
  /** The recording transcribed once the call ended ("" when nothing was recognised); absent until then. */
  transcript?: string;
}

/** The request's AMD parameters (POST Calls.json), or null without MachineDetection. Twilio's rules: async only here. */
export function parseAmdRequest(form: URLSearchParams): { mode: AmdMode; callbackUrl: string } | null {
  const mode = form.get("MachineDetection");
  if (mode === null || mode === "") return null;
  if (mode !== "Enable" && mode !== "DetectMessageEnd")
    throw new TwilioError(400, 21215, `Invalid MachineDetection: ${mode}. Use Enable or DetectMessageEnd.`);
  if (form.get("AsyncAmd") !== "true")
    throw new TwilioError(400, 21215, "The telephony sandbox runs answering-machine detection asynchronously only: send AsyncAmd=true.");
  const callbackUrl = form.get("AsyncAmdStatusCallback") ?? "";
  if (!/^https?:\/\/[^/\s]+/.test(callbackUrl))
    throw new TwilioError(400, 21262, "AsyncAmdStatusCallback must be an absolute URL: with none, the verdict goes nowhere.");
  if ((form.get("AsyncAmdStatusCallbackMethod") ?? "POST").toUpperCase() !== "POST")
    throw new TwilioError(400, 21215, "AsyncAmdStatusCallbackMethod must be POST.");
  return { mode, callbackUrl };
}

/** A pure tone as 8 kHz μ-law. */
function tone(hz: number, ms: number, amplitude = 8_000): Uint8Array {
  const n = Math.round((TELEPHONY_RATE * ms) / 1000);
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++) samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / TELEPHONY_RATE));
  return mulawEncode(samples);
}

/** What the detection needs from the call it runs on (the telephony sandbox gives it). */
export interface AmdLine {
  call: { sid: string; to: string; from: string; said: Array<{ text: string; startAt: number; endAt?: number }> };
  accountSid: string;
  authToken: string;
  provider: { url: string; apiKey: string };
  /** The callee's kind, from its number. */
  kind: "machine" | "fax" | "silent" | "person";
  greeting(): Promise<Uint8Array>;
  play(text: string, audio: Uint8Array): Promise<void>;
  after(ms: number, fn: () => void): void;
  /** Keeps the call unsettled until `work` is done (the verdict's POST, the transcription). */
  track(work: Promise<unknown>): void;
  error(message: string): void;
  /** The call is still up (a verdict is never sent after it ended). */
  live(): boolean;
  aborted: AbortSignal;
}

/** One call's detection and, on the machine and fax numbers, the callee itself. */
export class AnsweringMachine {
  readonly machine: SandboxMachine | undefined;
  private recorded: Uint8Array[] = [];
  private beepEnded: number | undefined;
  private begun = false;

  constructor(
    private readonly line: AmdLine,
    readonly amd: SandboxAmd | undefined,
  ) {
    this.machine = line.kind === "machine" ? { recording: { frames: 0 } } : undefined;
  }

  /** The media stream started: the machine greets, the fax calls, and the verdict is timed. */
  started(): void {
    if (this.begun) return; // a later stream of the same call (after a TwiML update) is no new answer
    this.begun = true;
    const { kind } = this.line;
    const startedAt = clock();
    if (kind === "person") this.line.after(HUMAN_AFTER_MS, () => this.post("human", startedAt));
    else if (kind === "silent") this.line.after(SILENCE_TIMEOUT_MS, () => this.post("unknown", startedAt));
    else if (kind === "fax") {
      this.line.after(FAX_AFTER_MS, () => this.post("fax", startedAt));
      this.calling();
    } else void this.greet(startedAt);
  }

  private calling(): void {
    void this.line.play("(fax tone)", tone(CNG_HZ, CNG_ON_MS));
    this.line.after(CNG_PERIOD_MS, () => this.calling());
  }

  private async greet(startedAt: number): Promise<void> {
    const m = this.machine as SandboxMachine;
    let audio: Uint8Array;
    try {
      audio = await this.line.greeting();
    } catch (err) {
      return this.line.error(`the machine's greeting could not be made: ${(err as Error).message}`);
    }
    const speechMs = (audio.length / TELEPHONY_RATE) * 1000;
    m.greeting = { startAt: clock() };
    if (this.amd?.mode === "Enable") this.line.after(Math.min(MACHINE_SPEECH_MS, speechMs), () => this.post("machine_start", startedAt));
    await this.line.play(GREETING, audio);
    if (!this.line.live()) return;
    m.greeting.endAt = clock();
    m.beep = { startAt: clock() };
    await this.line.play("(beep)", tone(BEEP_HZ, BEEP_MS));
    m.beep.endAt = clock();
    this.beepEnded = m.beep.endAt;
    if (this.amd?.mode === "DetectMessageEnd") this.post("machine_end_beep", startedAt);
  }

  /** The agent's audio: recorded once the beep has played. */
  heard(bytes: Uint8Array, at: number): void {
    const m = this.machine;
    if (!m || this.beepEnded === undefined) return;
    m.recording.firstAt ??= at;
    m.recording.lastAt = at;
    m.recording.frames += bytes.length / 160;
    this.recorded.push(bytes);
  }

  /** The call ended: the machine's recording is transcribed. */
  ended(): void {
    const m = this.machine;
    if (!m) return;
    this.line.track(
      this.transcribe()
        .then((text) => {
          m.transcript = text;
        })
        .catch((err: Error) => {
          m.transcript = "";
          this.line.error(`the machine's recording could not be transcribed: ${err.message}`);
        }),
    );
  }

  private async transcribe(): Promise<string> {
    const total = this.recorded.reduce((n, b) => n + b.length, 0);
    if (total === 0) return "";
    const mulaw = new Uint8Array(total);
    let offset = 0;
    for (const b of this.recorded) {
      mulaw.set(b, offset);
      offset += b.length;
    }
    const pcm = mulawDecode(mulaw);
    const wav = buildWav(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), TELEPHONY_RATE);
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(wav)], { type: "audio/wav" }), "voicemail.wav");
    form.append("model", "whisper-1");
    const res = await fetch(`${this.line.provider.url}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.line.provider.apiKey}` },
      body: form,
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) throw new Error(`${res.status} ${(await res.text()).slice(0, 200)}`);
    return ((await res.json()) as { text?: string }).text?.trim() ?? "";
  }

  /** The verdict, POSTed once to AsyncAmdStatusCallback (when the call asked for detection). */
  private post(answeredBy: AnsweredBy, startedAt: number): void {
    const amd = this.amd;
    if (!amd || amd.answeredBy || this.line.aborted.aborted || !this.line.live()) return;
    amd.answeredBy = answeredBy;
    amd.sentAt = clock();
    const { call, accountSid, authToken } = this.line;
    const params: Record<string, string> = {
      AccountSid: accountSid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      AnsweredBy: answeredBy,
      MachineDetectionDuration: String(Math.round(clock() - startedAt)),
      Called: call.to,
      Caller: call.from,
      From: call.from,
      To: call.to,
    };
    const work = fetch(amd.callbackUrl, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilioSignature(authToken, amd.callbackUrl, params),
        "i-twilio-idempotency-token": randomUUID(),
        "user-agent": "TwilioProxy/1.1",
      },
      body: new URLSearchParams(params).toString(),
      redirect: "manual",
      signal: AbortSignal.any([AbortSignal.timeout(CALLBACK_TIMEOUT_MS), this.line.aborted]),
    })
      .then(async (res) => {
        amd.httpStatus = res.status;
        await res.arrayBuffer().catch(() => undefined);
      })
      .catch((err: Error) => {
        amd.error = err.message;
      })
      .finally(() => {
        amd.postedAt = clock();
      });
    this.line.track(work);
  }
}
