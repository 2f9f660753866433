// Speech-to-text with speculation (docs/calls.md, "Turn-taking"): on a pause the caller's turn so
// far is transcribed at once; speech coming back discards that transcription (it is never
// cancelled: the provider has the audio and bills it); when the turn ends in the same pause its
// transcript is the turn's (committed: the reply no longer waits for a transcription after the
// wait), and when it sounds finished (a sentence, by the agent's eagerness) the turn is ended as soon as it is in (an `end-turn` frame up
// to turn detection), not after the rest of the endpointing wait. Without pauses every turn is
// transcribed after it ended. Transcripts go down in turn order.
import type { TurnEnd, TurnTaking } from "../turns";
import type { Direction, Frame } from "./frames";
import { type Clock, Stage } from "./pipeline";
import { type Eagerness, soundsFinished } from "./turn-plan";

/**
 * One transcription; `speculative` when started on a pause, before the turn ended. A turn's own
 * (not speculative) transcription is charged to the call; a speculation is the platform's cost
 * until a turn commits it, and then the turn's audio is charged once (`Charge`).
 */
export type Transcribe = (audio: Int16Array, speculative: boolean) => Promise<string>;
/** Charges the call for a turn's audio, transcribed by a speculation it committed. */
export type Charge = (audio: Int16Array) => Promise<void>;

interface Speculation {
  /** The detector's pause it was started in: it stands while the caller stays in that pause. */
  pause: number;
  /** The transcript, or why it failed; never rejects. */
  result: Promise<{ text: string } | { error: unknown }>;
}

/** A caller's turn, closed: how it ended, and its transcript (the standing speculation's, or requested now). */
export interface ClosedTurn {
  end: TurnEnd;
  turnTaking: TurnTaking;
  transcript(): Promise<string>;
}

export class SttStage extends Stage {
  readonly name = "stt";
  private speculation: Speculation | null = null;
  private turn = { speculations: 0, discarded: 0 };
  private order: Promise<void> = Promise.resolve();
  private ended = false;
  /** Ended turns whose transcript has not gone down yet. */
  pending = 0;
  /** The call's totals: turns, speculations and the caller's transcription requests in all. */
  readonly totals = { turns: 0, speculations: 0, committed: 0, discarded: 0, endedBySentence: 0, transcriptions: 0 };

  constructor(
    private readonly transcribeTurn: Transcribe,
    private readonly clock: Clock,
    /** How readily a pause's transcript ends the turn (turn-plan.ts, soundsFinished). */
    private readonly eagerness: Eagerness = "normal",
    private readonly charge: Charge = async () => undefined,
  ) {
    super();
  }

  process(frame: Frame, _direction: Direction): boolean {
    switch (frame.type) {
      case "audio-in":
        return true; // transcribed by the turn (its audio is in the turn's end)
      case "speech-paused":
        this.speculate(frame.pause, frame.audio);
        return true;
      case "speech-resumed":
        this.discard();
        return true;
      case "turn-ended": {
        // Requested now (or the standing speculation's), sent down after the turns before it.
        const turn = this.close(frame.end, frame.endedBy);
        const t0 = this.clock.now();
        const text = turn.transcript().then(
          (t) => ({ text: t.trim(), sttMs: this.clock.now() - t0 }),
          (error: unknown) => ({ error }),
        );
        this.pending++;
        this.order = this.track(
          this.order.then(async () => {
            const r = await text;
            this.pending--;
            if (this.ended) return;
            if ("error" in r) this.push({ type: "error", stage: "stt", error: r.error });
            else this.push({ type: "transcript", text: r.text, end: turn.end, turnTaking: turn.turnTaking, sttMs: r.sttMs });
          }),
        );
        return true;
      }
      case "end":
        this.ended = true;
        return true;
      default:
        return false;
    }
  }

  /** The caller's last words (the turn flushed as the call ends): its transcript, not a reply. */
  lastWords(end: TurnEnd): ClosedTurn {
    return this.close(end, "silence");
  }

  private transcribe(audio: Int16Array, speculative: boolean): Promise<string> {
    this.totals.transcriptions++;
    return this.transcribeTurn(audio, speculative);
  }

  private speculate(pause: number, audio: Int16Array): void {
    const result = this.transcribe(audio, true).then(
      (text) => ({ text: text.trim() }),
      (error: unknown) => ({ error }),
    );
    const speculation: Speculation = { pause, result };
    this.speculation = speculation;
    this.turn.speculations++;
    this.totals.speculations++;
    void result.then((r) => {
      if (this.speculation !== speculation || !("text" in r) || !soundsFinished(r.text, this.eagerness) || this.ended) return;
      this.push({ type: "end-turn", pause, at: this.clock.now() }, "up");
    });
  }

  /** The caller spoke again within the turn: the pause's transcript no longer covers it. */
  private discard(): void {
    if (!this.speculation) return;
    this.speculation = null;
    this.turn.discarded++;
    this.totals.discarded++;
  }

  private close(end: TurnEnd, endedBy: TurnTaking["endedBy"]): ClosedTurn {
    const standing = end.pause !== null && this.speculation?.pause === end.pause ? this.speculation : null;
    if (!standing) this.discard();
    this.speculation = null;
    const turnTaking: TurnTaking = {
      waitMs: Math.max(0, Math.round(end.at - end.speechEndAt)),
      endedBy,
      speculations: this.turn.speculations,
      discarded: this.turn.discarded,
      committed: standing !== null,
      transcriptions: this.turn.speculations + (standing ? 0 : 1),
    };
    this.turn = { speculations: 0, discarded: 0 };
    this.totals.turns++;
    if (standing) {
      this.totals.committed++;
      // The caller pays for the turn's audio once, whatever it took to speculate on it.
      void this.track(this.charge(end.audio).catch((error: unknown) => this.ended || this.push({ type: "error", stage: "stt", error })));
    }
    if (endedBy === "sentence") this.totals.endedBySentence++;
    let transcript: Promise<string> | null = null;
    return {
      end,
      turnTaking,
      transcript: () => {
        transcript ??= standing
          ? standing.result.then((r) => {
              if ("error" in r) throw r.error;
              return r.text;
            })
          : this.transcribe(end.audio, false);
        return transcript;
      },
    };
  }
}
