// Streaming speech-to-text (docs/calls.md, "Streaming transcription"): every frame of the caller's
// audio goes to the provider as it arrives (Deepgram's live API: src/providers/deepgram.ts), and
// the provider's turn model ends the turn: Flux's EndOfTurn, or Nova's speech_final / UtteranceEnd.
// The turn's transcript is ready when it ends, so no pause and no upload sit before the reply.
//
// Nova's segment end (speech_final) ends the turn only when it sounds finished (turn-plan.ts).
// It also decides, through the interruption gate (interruptions.ts), what interrupts the agent; a
// turn that was only backchannels over the agent is dropped rather than answered.
import type { SttStream, SttStreamEvent } from "../../providers/types";
import type { TurnTaking } from "../turns";
import { sameWords, substantiveWords } from "./backchannels";
import type { Direction, Frame, FrameOf } from "./frames";
import { InterruptionGate } from "./interruptions";
import { type Clock, Stage } from "./pipeline";
import { type Eagerness, soundsFinished } from "./turn-plan";

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
  /** Words (not backchannels) heard over the agent that interrupt it; 1 unless set. */
  minInterruptionWords?: number;
  /** Nova: whether a segment's end (speech_final) that sounds finished ends the turn (turn-plan.ts); Flux decides itself. */
  eagerness?: Eagerness;
  /** The caller's words of this turn so far, each time more are heard (the knowledge prefetch). */
  onHeard?: (text: string) => void;
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
  private readonly gate: InterruptionGate;
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
    this.gate = new InterruptionGate({ minMs: opts.minInterruptionMs, minWords: opts.minInterruptionWords ?? 1 });
  }

  process(frame: Frame, _direction: Direction): boolean {
    switch (frame.type) {
      case "audio-in":
        this.send(frame.samples);
        if (frame.voiced) {
          const ms = (frame.samples.length / this.opts.sampleRate) * 1000;
          this.lastVoicedAt = frame.at + ms;
          this.interrupt(this.gate.voiced(ms)); // sound over the agent that lasts interrupts without a word
        }
        return true;
      case "speech-started":
        if (!this.turn.speaking && !this.turn.words) this.turn.startAt = frame.at;
        this.turn.speaking = true;
        if (!this.gate.speechStarted(frame.at, this.turn.words !== "")) this.push(frame);
        return true;
      case "turn-ended":
        // Voice activity's end of a stretch of sound: the turn itself ends when the provider says so.
        this.turn.speaking = false;
        this.turn.endAt = frame.end.speechEndAt;
        if (this.gate.soundEnded()) this.totals.ignoredSounds++;
        return true;
      case "speech-paused":
      case "speech-resumed":
        return true;
      case "agent-speaking":
        this.gate.agent(frame.speaking);
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
        // Nova's segment ended on the shortest wait: the turn ends if it sounds finished, else at UtteranceEnd (the longest).
        if (e.speechFinal && soundsFinished(this.turn.words, this.opts.eagerness ?? "normal")) this.endTurn("silence");
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
    if (this.eager !== null || !text || this.gate.agentSpeaking || this.gate.pending || substantiveWords(text).length === 0) return;
    this.eager = text;
    this.totals.speculations++;
    this.push(this.transcriptFrame(text, "model", true, this.turn.startAt, this.speechEnd(this.turn.speaking, this.turn.endAt)));
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

  /** Words heard over the agent: enough that are not backchannels interrupt it. */
  private heard(text: string): void {
    this.opts.onHeard?.(text);
    this.interrupt(this.gate.heard(text));
  }

  /** The gate's verdict: sound that started at `at` interrupts the agent. */
  private interrupt(at: number | null): void {
    if (at === null) return;
    this.totals.interruptions++;
    this.push({ type: "speech-started", at });
  }

  private endTurn(endedBy: "silence" | "model"): void {
    const { words, startAt, endAt } = this.turn;
    const speaking = this.turn.speaking;
    const overAgent = this.gate.turnEnded();
    this.turn = { words: "", interim: "", startAt: 0, endAt: 0, speaking };
    if (!words) return;
    if (overAgent && substantiveWords(words).length === 0) {
      this.totals.droppedBackchannels++; // "mhm" while the agent spoke: not a turn to answer
      return;
    }
    this.totals.turns++;
    if (endedBy === "model") this.totals.endedByModel++;
    this.push(this.transcriptFrame(words, endedBy, false, startAt, this.speechEnd(speaking, endAt)));
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
