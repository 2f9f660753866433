// The telephony sandbox's simulated callee: which scenario a dialled number plays (like Twilio's
// magic test numbers), what the callee says, and when. Its voice is real speech from the provider
// sandbox (POST /v1/audio/speech, 24 kHz pcm) turned into 8 kHz μ-law, as a phone line carries it.
// Turn taking: the callee answers each time the agent finishes speaking (the playback buffer ran
// dry and no audio came for 250 ms; see media-stream.ts), after REPLY_DELAY_MS.
import { FRAME_MS, mulawEncode, pcm16FromBytes, resample, rms, TELEPHONY_RATE } from "../../src/calls/codec";
import { GREETING } from "./amd";
import { IVR_DEPARTMENTS, IVR_INVALID, IVR_MENU, Ivr, KeyPresser, type KeypadCallee } from "./ivr";

export type Scenario =
  | "invalid"
  | "unreachable"
  | "busy"
  | "no-answer"
  | "silent"
  | "chatterbox"
  | "barge-in"
  | "hangs-up"
  | "tools"
  | "transfer"
  | "machine"
  | "fax"
  | "ivr"
  | "keypad"
  | "brief"
  | "conversation";

/** Numbers with a fixed behaviour (fictional 555-01xx numbers); any other valid E.164 number is a "conversation". */
export const SCENARIO_NUMBERS: Readonly<Record<string, Scenario>> = {
  "+15005550001": "invalid",
  "+12025550101": "silent",
  "+12025550102": "busy",
  "+12025550103": "no-answer",
  "+12025550104": "unreachable",
  "+12025550105": "chatterbox",
  "+12025550106": "barge-in",
  "+12025550107": "hangs-up",
  "+12025550108": "tools",
  "+12025550109": "transfer",
  // Answering-machine detection's callees (amd.ts): a voicemail greeting then a beep, and a fax.
  "+12025550131": "machine",
  "+12025550132": "fax",
  "+12025550110": "ivr",
  "+12025550111": "keypad",
};

/**
 * The brief callee's numbers, +1 555 and seven digits (area code 555 is not assigned): as many
 * distinct numbers as a campaign's bench needs, each answering and hanging up BRIEF_MS later.
 */
export const BRIEF_NUMBER = /^\+1555\d{7}$/;

export const scenarioFor = (to: string): Scenario => SCENARIO_NUMBERS[to] ?? (BRIEF_NUMBER.test(to) ? "brief" : "conversation");

/** The default conversation: one sentence per turn, then silence. */
export const SCRIPT = ["Hi, I would like to book an appointment.", "Tuesday morning works for me.", "No, that's all. Goodbye."];
/** The barge-in callee's interruption, 600 ms into the agent's first utterance. */
export const INTERRUPTION = "Sorry, can I stop you there for a second?";
/**
 * The tools callee asks for what an agent's tools do (the provider sandbox's model calls every tool
 * a message names: `lookup_order` as "lookup order"; docs/sandbox.md), then ends the call through end_call.
 */
export const TOOLS_SCRIPT = [
  "Hi, can you lookup order forty two for me?",
  "And can you check slow tool and broken tool?",
  "Thanks, that is all, you can end call now.",
];
/** The transfer callee asks to be handed on (transfer_call). */
export const TRANSFER_LINE = "Hi, I would like a person, please transfer call to billing.";
/** The hanging-up callee's only line. */
export const HANG_UP_LINE = "Sorry, I can't talk right now, please call me back later.";
/** The chatterbox says these in turn, forever. */
export const LONG_LINES = [
  "Well, let me tell you about my week, because it has been a long one, starting on Monday when the car would not start and I had to walk all the way to the station in the rain.",
  "And then on Wednesday my sister called to say that she was coming to visit with her three children and the dog, which means I will have to clean the whole house before the weekend.",
  "Anyway, that reminds me of the time we all went to the seaside together and it rained for six days in a row, so we spent the whole holiday playing cards in a tiny caravan.",
];

/** The callee speaks first when the agent has said nothing this long after the stream started. */
export const FIRST_WORDS_MS = 3_000;
/** Pause between the agent finishing and the callee's reply. */
export const REPLY_DELAY_MS = 200;
/** How far into the agent's first utterance the barge-in callee starts talking. */
export const BARGE_IN_MS = 600;
/** How long the brief callee stays on the line, silent, before hanging up. */
export const BRIEF_MS = 500;
/** Pause between the hanging-up callee's line and its hang-up. */
export const HANG_UP_DELAY_MS = 300;

const PCM_RATE = 24_000;
/** Frames quieter than this (16-bit RMS) at either end of a synthesized line are cut: the line starts and ends with speech. */
const EDGE_SILENCE_RMS = 100;

/** Synthesizes the callee's lines through the provider sandbox, as 8 kHz μ-law; each text once. */
export class CalleeVoice {
  private cache = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly provider: { url: string; apiKey: string },
    readonly voice: string,
  ) {}

  audio(text: string): Promise<Uint8Array> {
    let hit = this.cache.get(text);
    if (!hit) {
      hit = this.synthesize(text);
      hit.catch(() => this.cache.delete(text)); // a failure is retried next time
      this.cache.set(text, hit);
    }
    return hit;
  }

  private async synthesize(text: string): Promise<Uint8Array> {
    const res = await fetch(`${this.provider.url}/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.provider.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "tts-1", voice: this.voice, input: text, response_format: "pcm" }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) throw new Error(`speech for the callee failed: ${res.status} ${(await res.text()).slice(0, 200)}`);
    const pcm = pcm16FromBytes(new Uint8Array(await res.arrayBuffer()));
    const phone = resample(pcm, PCM_RATE, TELEPHONY_RATE);
    const frame = (TELEPHONY_RATE * FRAME_MS) / 1000;
    let start = 0;
    let end = phone.length;
    while (start < end && rms(phone.subarray(start, start + frame)) < EDGE_SILENCE_RMS) start += frame;
    while (end > start && rms(phone.subarray(Math.max(start, end - frame), end)) < EDGE_SILENCE_RMS) end -= frame;
    return mulawEncode(phone.subarray(start, end));
  }
}

/** What the callee can do on the line; the telephony sandbox implements it for each call. */
export interface CalleeLine {
  /** Plays the line; resolves when its last frame has been sent (or the call ended). */
  play(text: string, audio: Uint8Array, opts?: { bargeIn?: boolean }): Promise<void>;
  agentSpeaking(): boolean;
  hangUp(): void;
  /** A timer that is cancelled when the call ends. */
  after(ms: number, fn: () => void): void;
  error(message: string): void;
  /** Presses a key: a `dtmf` message on the stream (ivr.ts). */
  press(digit: string): void;
}

/** Every line a scenario's callee may say. */
export function linesOf(scenario: Scenario): string[] {
  switch (scenario) {
    case "conversation":
      return SCRIPT;
    case "barge-in":
      return [INTERRUPTION, ...SCRIPT];
    case "chatterbox":
      return LONG_LINES;
    case "hangs-up":
      return [HANG_UP_LINE];
    case "tools":
      return TOOLS_SCRIPT;
    case "transfer":
      return [TRANSFER_LINE];
    case "machine":
      return [GREETING];
    case "ivr":
      return [IVR_MENU, IVR_INVALID, ...Object.values(IVR_DEPARTMENTS).map((d) => d.line)];
    default:
      return [];
  }
}

/** One callee on one call: the scenario's script and its turn taking. */
export class Callee {
  private step = 0;
  private speaking = false;
  private agentHeard = false;
  private interrupted = false;
  /** The IVR and keypad callees (ivr.ts) play their own part. */
  readonly keypad: KeypadCallee | null;
  readonly ivr: Ivr | null = null;

  constructor(
    readonly scenario: Scenario,
    private readonly voice: CalleeVoice,
    private readonly line: CalleeLine,
  ) {
    const keypadLine = { ...line, say: (text: string) => this.say(text) };
    if (scenario === "ivr") this.ivr = new Ivr(keypadLine);
    this.keypad = this.ivr ?? (scenario === "keypad" ? new KeyPresser(keypadLine, FIRST_WORDS_MS, HANG_UP_DELAY_MS) : null);
  }

  /** The worker's <Play digits> played these keys on the call. */
  heardDigits(digits: string): void {
    this.keypad?.heard(digits);
  }

  /** Every line this scenario may say, so their audio can be made while the phone rings. */
  lines(): string[] {
    return linesOf(this.scenario);
  }

  prepare(): void {
    for (const text of this.lines()) this.voice.audio(text).catch(() => undefined); // errors surface when the line is said
  }

  /** The media stream started. */
  connected(): void {
    if (this.keypad) {
      this.keypad.connected();
      return;
    }
    // The barge-in callee waits for the agent, however long its first words take (a busy machine's
    // speech thread): it exists to talk over them, never to speak first.
    // The machine and the fax are played by amd.ts: they never answer the agent.
    if (["silent", "barge-in", "machine", "fax"].includes(this.scenario)) return;
    if (this.scenario === "brief") {
      this.line.after(BRIEF_MS, () => this.line.hangUp());
      return;
    }
    this.line.after(FIRST_WORDS_MS, () => {
      if (!this.agentHeard && this.step === 0 && !this.speaking) void this.next();
    });
  }

  agentStarted(): void {
    this.agentHeard = true;
    this.keypad?.agentStarted();
    if (this.scenario === "barge-in" && !this.interrupted) {
      this.interrupted = true;
      this.line.after(BARGE_IN_MS, () => {
        if (this.line.agentSpeaking() && !this.speaking) void this.say(INTERRUPTION, true);
      });
    }
  }

  /** The agent stopped talking. A callee that is talking itself lets it pass (it talked over the agent). */
  agentFinished(): void {
    if (this.keypad) {
      this.keypad.agentFinished();
      return;
    }
    if (this.speaking) return;
    this.line.after(REPLY_DELAY_MS, () => {
      if (!this.speaking && !this.line.agentSpeaking()) void this.next();
    });
  }

  private lineAt(step: number): string | undefined {
    switch (this.scenario) {
      case "conversation":
      case "barge-in":
        return SCRIPT[step];
      case "chatterbox":
        return LONG_LINES[step % LONG_LINES.length];
      case "hangs-up":
        return step === 0 ? HANG_UP_LINE : undefined;
      case "tools":
        return TOOLS_SCRIPT[step];
      case "transfer":
        return step === 0 ? TRANSFER_LINE : undefined;
      default:
        return undefined;
    }
  }

  private async next(): Promise<void> {
    const text = this.lineAt(this.step);
    if (text === undefined) return;
    this.step++;
    await this.say(text);
    if (this.scenario === "hangs-up") this.line.after(HANG_UP_DELAY_MS, () => this.line.hangUp());
  }

  private async say(text: string, bargeIn = false): Promise<void> {
    this.speaking = true;
    try {
      const audio = await this.voice.audio(text);
      await this.line.play(text, audio, { bargeIn });
    } catch (err) {
      this.line.error(`callee could not say "${text}": ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.speaking = false;
    }
  }
}
