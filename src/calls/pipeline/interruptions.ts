// What interrupts the agent (docs/calls.md, "Interruptions, backchannels and noise"). Voice
// activity says that someone makes a sound; while the agent speaks, that sound is only a candidate
// until the provider has heard enough words that are not backchannels (the agent's
// `interruptionMinWords`), or until it has sounded `interruptionMinMs` (its voiced frames, not the
// quiet after them). A cough, a breath or an "uh-huh" stops nothing.
import { substantiveWords } from "./backchannels";

export interface InterruptionRules {
  /** Sound this long interrupts even before a word is recognized. */
  minMs: number;
  /** Words (not backchannels) that interrupt. */
  minWords: number;
}

export class InterruptionGate {
  /** The agent's audio is playing. */
  agentSpeaking = false;
  /** Sound while the agent speaks, not (yet) an interruption: when it started. */
  private candidate: number | null = null;
  /** How long the candidate has sounded. */
  private voicedMs = 0;
  /** The caller's turn began as sound over the agent that interrupted nothing. */
  private overAgent = false;

  constructor(private readonly rules: InterruptionRules) {}

  /** Sound over the agent is being weighed. */
  get pending(): boolean {
    return this.candidate !== null;
  }

  agent(speaking: boolean): void {
    this.agentSpeaking = speaking;
    if (!speaking) this.candidate = null;
  }

  /** Speech starts: true when it is over the agent (a candidate, not passed on). */
  speechStarted(at: number, turnHasWords: boolean): boolean {
    if (!this.agentSpeaking) return false;
    if (this.candidate === null) this.voicedMs = 0;
    this.candidate ??= at;
    if (!turnHasWords) this.overAgent = true;
    return true;
  }

  /** A voiced frame of `ms`: when the sound started, if it now interrupts. */
  voiced(ms: number): number | null {
    if (this.candidate === null) return null;
    this.voicedMs += ms;
    return this.voicedMs >= this.rules.minMs ? this.take() : null;
  }

  /** The words heard so far in the turn: when the sound started, if they interrupt. */
  heard(text: string): number | null {
    if (this.candidate === null || substantiveWords(text).length < this.rules.minWords) return null;
    return this.take();
  }

  /** The stretch of sound ended: true when it was a candidate that interrupted nothing (an ignored sound). */
  soundEnded(): boolean {
    const ignored = this.candidate !== null;
    this.candidate = null;
    return ignored;
  }

  /** The caller's turn ends: whether it was only sound over the agent (its backchannels are not a turn). */
  turnEnded(): boolean {
    const over = this.overAgent && this.candidate === null;
    this.overAgent = false;
    return over || this.agentSpeaking;
  }

  private take(): number {
    const at = this.candidate as number;
    this.candidate = null;
    this.overAgent = false;
    return at;
  }
}
