// Turn detection: the caller's 20 ms frames through the voice-activity detector
// (src/calls/turns.ts), out as speech started, paused, resumed and turn ended. The STT stage may
// end a turn early, from inside a pause whose transcript ended a sentence (an `end-turn` frame up).
import type { TurnDetector, TurnEnd } from "../turns";
import type { Direction, Frame } from "./frames";
import { Stage } from "./pipeline";

export class TurnDetectionStage extends Stage {
  readonly name = "turn-detection";

  constructor(
    private readonly detector: TurnDetector,
    readonly sampleRate: number,
  ) {
    super();
  }

  /** True while the caller is speaking (after the start delay). */
  get inSpeech(): boolean {
    return this.detector.inSpeech;
  }

  process(frame: Frame, _direction: Direction): boolean {
    if (frame.type === "audio-in") {
      for (const event of this.detector.push(frame.samples, frame.at)) {
        if (event.type === "speech-start") this.push({ type: "speech-started", at: event.at });
        else if (event.type === "pause") this.push({ ...event, type: "speech-paused" });
        else if (event.type === "resume") this.push({ type: "speech-resumed", pause: event.pause, at: event.at });
        else this.push({ type: "turn-ended", end: event, endedBy: "silence" });
      }
      frame.voiced = this.detector.inSpeech && this.detector.lastLoud;
      return false; // the audio goes on down: a streaming STT sends it to its provider
    }
    if (frame.type === "end-turn") {
      const end = this.detector.endInPause(frame.pause, frame.at);
      if (end) this.push({ type: "turn-ended", end, endedBy: "sentence" });
      return true;
    }
    return false;
  }

  /** The turn in progress, closed now (the call is ending inside the endpointing wait); null when the caller was not speaking. */
  flush(at: number): TurnEnd | null {
    return this.detector.flush(at);
  }
}
