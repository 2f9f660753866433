// Streaming speech-to-text (docs/calls.md, "Streaming transcription"): every frame of the caller's
// audio goes to the provider as it arrives (Deepgram's live API: src/providers/deepgram.ts), and
// the provider's turn model ends the turn: Flux's EndOfTurn, or Nova's speech_final / UtteranceEnd.
// The turn's transcript is ready when it ends, so no pause and no upload sit before the reply.
//
// It also decides what interrupts the agent. Voice activity (the turn detection stage) says that
// someone makes a sound; while the agent speaks, that sound interrupts only once the provider has
// heard a word that is not a backchannel ("mhm", "yeah", "right"), or once it has lasted
// `minInterruptionMs`. A cough, a breath or an "uh-huh" stops nothing, and a turn that was only
// such words while the agent spoke is dropped rather than answered.
import type { SttStream, SttStreamEvent } from "../../providers/types";
import type { TurnTaking } from "../turns";
import { sameWords, substantiveWords } from "./backchannels";
import type { Direction, Frame, FrameOf } from "./frames";
import { type Clock, Stage } from "./pipeline";

export interface StreamPort {
  /** Opens the provider's stream for this call; events come to `onEvent`. */
  open(onEvent: (e: SttStreamEvent) => void): Promise<SttStream>;
  /** Meters `seconds` of audio streamed (the provider bills every second it receives). */
  meter(seconds: number): Promise<void>;
}

export interface StreamingSttOptions {
  sampleRate: number;
  /** Sound this long interrupts the agent even before a word is recognized. */
  minInterruptionMs: number;
}

export class StreamingSttStage extends Stage {
  readonly name = "stt";
  private stream: SttStream | null = null;
  /** The stream is being opened (once, at the first frame). */
  private opening = false;
  private readonly backlog: Int16Array[] = [];
  private ended = false;
  /** Samples sent and not yet metered. */
  private unbilled = 0;
  /** The caller's turn in progress: its words so far and its voice activity. */
  private turn = { words: "", interim: "", startAt: 0, endAt: 0, speaking: false };
  /** The end of the last voiced frame: the caller's speech end while voice activity has not closed the stretch yet. */
  private lastVoicedAt = 0;
  private agentSpeaking = false;
  /** Sound while the agent speaks, not (yet) an interruption: when it started. */
  private candidate: number | null = null;
  /** How long the candidate has sounded (its voiced frames). */
  private voicedMs = 0;
  /** The turn began as sound over the agent that interrupted nothing: only backchannels in it are dropped. */
  private overAgent = false;
  /** A speculative transcript sent on Flux's EagerEndOfTurn, until the turn resumes or ends. */
  private eager: string | null = null;
  /** Speculations thrown away in the turn in progress (the caller went on). */
  private discarded = 0;
  /** Pending turns: always 0 (a streamed transcript goes down as the turn ends). */
  readonly pending = 0;
  readonly totals = {
    turns: 0,
    interruptions: 0,
    ignoredSounds: 0,
    droppedBackchannels: 0,
    endedByModel: 0,
    speculations: 0,
    committed: 0,
    discarded: 0,
  };

  constructor(
    private readonly port: StreamPort,
    private readonly clock: Clock,
    private readonly opts: StreamingSttOptions,
  ) {
    super();
  }

  process(frame: Frame, _direction: Direction): boolean {
    switch (frame.type) {
      case "audio-in":
        this.send(frame.samples);
        if (frame.voiced) this.lastVoicedAt = frame.at + (frame.samples.length / this.opts.sampleRate) * 1000;
        // Sound over the agent that lasts (its voiced frames, not the quiet after it) interrupts without a word.
        if (this.candidate !== null && frame.voiced) {
          this.voicedMs += (frame.samples.length / this.opts.sampleRate) * 1000;
          if (this.voicedMs >= this.opts.minInterruptionMs) this.interrupt();
        }
        return true;
      case "speech-started":
        if (!this.turn.speaking && !this.turn.words) this.turn.startAt = frame.at;
        this.turn.speaking = true;
        if (this.agentSpeaking) {
          if (this.candidate === null) this.voicedMs = 0;
          this.candidate ??= frame.at;
          if (!this.turn.words) this.overAgent = true;
        } else this.push(frame);
        return true;
      case "turn-ended":
        // Voice activity's end of a stretch of sound: the turn itself ends when the provider says so.
        this.turn.speaking = false;
        this.turn.endAt = frame.end.speechEndAt;
        if (this.candidate !== null) {
          this.candidate = null;
          this.totals.ignoredSounds++;
        }
        return true;
      case "speech-paused":
      case "speech-resumed":
        return true;
      case "agent-speaking":
        this.agentSpeaking = frame.speaking;
        if (!frame.speaking) this.candidate = null;
        return true;
      case "end":
        this.ended = true;
        void this.track(this.close());
        return true;
      default:
        return false;
    }
  }

  /** What the caller was saying when the call ended (not yet a turn), for the transcript. */
  lastWords(): { text: string; startAt: number; endAt: number } | null {
    const text = `${this.turn.words} ${this.turn.interim}`.trim();
    return text ? { text, startAt: this.turn.startAt, endAt: this.turn.endAt || this.clock.now() } : null;
  }

  private send(samples: Int16Array): void {
    if (this.ended) return;
    if (this.stream) {
      this.stream.send(samples);
      this.unbilled += samples.length;
      return;
    }
    this.backlog.push(samples);
    if (this.opening) return;
    this.opening = true;
    void this.track(this.openStream());
  }

  private async openStream(): Promise<void> {
    try {
      const stream = await this.port.open((e) => this.onEvent(e));
      if (this.ended) {
        await stream.close();
        return;
      }
      this.stream = stream;
      for (const samples of this.backlog.splice(0)) this.send(samples);
    } catch (error) {
      if (!this.ended) this.push({ type: "error", stage: "stt", error });
    }
  }

  private onEvent(e: SttStreamEvent): void {
    if (this.ended) return;
    switch (e.type) {
      case "interim":
      case "update":
        this.turn.interim = e.text;
        this.heard(`${this.turn.words} ${e.text}`);
        return;
      case "final":
        this.turn.words = `${this.turn.words} ${e.text}`.trim();
        this.turn.interim = "";
        this.heard(this.turn.words);
        if (e.speechFinal) this.endTurn("silence");
        return;
      case "utterance-end":
        this.endTurn("silence");
        return;
      case "eager-end-of-turn":
        this.speculate(e.text.trim());
        return;
      case "turn-resumed":
        this.settleSpeculation(false);
        return;
      case "end-of-turn": {
        const text = e.text.trim();
        if (this.eager !== null && sameWords(this.eager, text)) {
          const { startAt, endAt, speaking } = this.turn;
          this.settleSpeculation(true, this.transcriptFrame(text, "model", false, startAt, this.speechEnd(speaking, endAt)));
          this.turn = { words: "", interim: "", startAt: 0, endAt: 0, speaking };
          void this.track(this.bill());
          return;
        }
        this.settleSpeculation(false);
        this.turn.words = text;
        this.turn.interim = "";
        this.endTurn("model");
        return;
      }
      case "error":
        this.push({ type: "error", stage: "stt", error: new Error(e.message) });
        return;
      default:
        return; // start-of-turn: voice activity carries it
    }
  }

  /**
   * Flux's early end of turn: the reply starts on this transcript (its speech held until the turn
   * is confirmed, its tools too). Not over the agent's speech, nor for backchannels.
   */
  private speculate(text: string): void {
    if (this.eager !== null || !text || this.agentSpeaking || this.candidate !== null || substantiveWords(text).length === 0) return;
    this.eager = text;
    this.totals.speculations++;
    this.transcriptOf(text, "model", true, this.turn.startAt, this.speechEnd(this.turn.speaking, this.turn.endAt));
  }

  private settleSpeculation(confirmed: boolean, transcript?: FrameOf<"transcript">): void {
    if (this.eager === null) return;
    this.eager = null;
    if (confirmed) {
      this.totals.committed++;
      this.totals.turns++;
      this.totals.endedByModel++;
      this.discarded = 0;
    } else {
      this.totals.discarded++;
      this.discarded++;
    }
    this.push({ type: "turn-outcome", confirmed, at: this.clock.now(), ...(transcript && { transcript }) });
  }

  /** Words heard over the agent: one that is not a backchannel interrupts it. */
  private heard(text: string): void {
    if (this.candidate !== null && substantiveWords(text).length > 0) this.interrupt();
  }

  private interrupt(): void {
    const at = this.candidate as number;
    this.candidate = null;
    this.overAgent = false;
    this.totals.interruptions++;
    this.push({ type: "speech-started", at });
  }

  private endTurn(endedBy: "silence" | "model"): void {
    const { words, startAt, endAt } = this.turn;
    const speaking = this.turn.speaking;
    const overAgent = this.overAgent && this.candidate === null;
    this.turn = { words: "", interim: "", startAt: 0, endAt: 0, speaking };
    this.overAgent = false;
    if (!words) return;
    if ((overAgent || this.agentSpeaking) && substantiveWords(words).length === 0) {
      this.totals.droppedBackchannels++; // "mhm" while the agent spoke: not a turn to answer
      return;
    }
    this.totals.turns++;
    if (endedBy === "model") this.totals.endedByModel++;
    this.transcriptOf(words, endedBy, false, startAt, this.speechEnd(speaking, endAt));
    this.discarded = 0;
    void this.track(this.bill());
  }

  /**
   * When the caller's speech ended: voice activity's end of the stretch, or, when the provider's end
   * of turn came first (Flux is often faster than our 200 ms of quiet), the last voiced frame's end.
   */
  private speechEnd(speaking: boolean, endAt: number): number {
    return speaking ? this.lastVoicedAt : endAt;
  }

  /** The turn's transcript down: the provider's end of turn brings it, so the whole wait is endpointing, none is transcription. */
  private transcriptOf(text: string, endedBy: TurnTaking["endedBy"], speculative: boolean, startAt: number, endAt: number): void {
    this.push(this.transcriptFrame(text, endedBy, speculative, startAt, endAt));
  }

  private transcriptFrame(
    text: string,
    endedBy: TurnTaking["endedBy"],
    speculative: boolean,
    startAt: number,
    endAt: number,
  ): FrameOf<"transcript"> {
    const now = this.clock.now();
    const speechEndAt = endAt || now;
    const discarded = this.discarded;
    const turnTaking: TurnTaking = {
      waitMs: Math.max(0, now - speechEndAt),
      endedBy,
      speculations: discarded + (speculative ? 1 : 0),
      discarded,
      committed: speculative,
      transcriptions: 0,
    };
    const end = {
      type: "turn-end" as const,
      audio: new Int16Array(0),
      speechStartAt: startAt || speechEndAt,
      speechEndAt,
      at: now,
      pause: null,
    };
    return { type: "transcript", text, end, turnTaking, sttMs: 0, ...(speculative && { speculative }) };
  }

  private async bill(): Promise<void> {
    const seconds = this.unbilled / this.opts.sampleRate;
    this.unbilled = 0;
    if (seconds <= 0) return;
    try {
      await this.port.meter(seconds);
    } catch (error) {
      if (!this.ended) this.push({ type: "error", stage: "stt", error });
    }
  }

  private async close(): Promise<void> {
    const stream = this.stream;
    this.stream = null;
    await stream?.close().catch(() => 0);
    await this.bill();
  }
}
