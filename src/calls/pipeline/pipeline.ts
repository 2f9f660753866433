// The call's pipeline: stages in order, each handling the frames it knows and passing on the rest,
// as pipecat's Pipeline of frame processors does. Delivery is one queue, first in first out, so a
// stage never runs inside another and the order frames were pushed in is the order they are seen
// (a stage's async work pushes its frames when it resumes). System frames go to every stage, in
// order, ahead of the queue. Observers (recorder, metrics) see every frame once, when it is pushed;
// frames that leave either end go to the sink (the session).
import { type Direction, type Frame, SYSTEM_FRAMES, type SystemFrame } from "./frames";

/** Time for the stages: the wall clock in a call, a fake one in tests. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export abstract class Stage {
  abstract readonly name: string;
  private pipeline: Pipeline | null = null;
  private index = -1;

  /** Handles a frame; false passes it on unchanged in the direction it travels. */
  abstract process(frame: Frame, direction: Direction): boolean;

  attach(pipeline: Pipeline, index: number): void {
    this.pipeline = pipeline;
    this.index = index;
  }

  /** Sends a frame to the next stage down (towards the caller's ear) or up (towards the caller's mouth). */
  protected push(frame: Frame, direction: Direction = "down"): void {
    this.pipeline?.send(frame, this.index + (direction === "down" ? 1 : -1), direction);
  }

  /** Async work of this stage (a provider request): the call's resources stay open until it settles. */
  protected track<T>(work: Promise<T>): Promise<T> {
    this.pipeline?.track(work);
    return work;
  }

  /** A system frame, to every stage (this one included). */
  protected broadcast(frame: SystemFrame): void {
    this.pipeline?.broadcast(frame);
  }
}

export type Observer = (frame: Frame) => void;

interface Delivery {
  frame: Frame;
  to: number;
  direction: Direction;
}

export class Pipeline {
  private readonly queue: Delivery[] = [];
  /** System frames' deliveries: taken before anything in `queue`. */
  private readonly urgent: Delivery[] = [];
  private draining = false;
  private readonly work = new Set<Promise<unknown>>();

  constructor(
    readonly stages: readonly Stage[],
    private readonly sink: (frame: Frame) => void,
    private readonly observers: Observer[] = [],
  ) {
    stages.forEach((stage, i) => {
      stage.attach(this, i);
    });
  }

  /** A frame from outside: down from the first stage (the transport's), or into stage `at`. */
  push(frame: Frame, at = 0, direction: Direction = "down"): void {
    if (SYSTEM_FRAMES.has(frame.type)) this.broadcast(frame as SystemFrame);
    else this.send(frame, at, direction);
  }

  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.work.add(settled);
    void settled.then(() => this.work.delete(settled));
  }

  /** Settles once every stage's tracked work has (work started meanwhile included). */
  async settled(): Promise<void> {
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  send(frame: Frame, to: number, direction: Direction): void {
    for (const observe of this.observers) observe(frame);
    this.queue.push({ frame, to, direction });
    this.drain();
  }

  broadcast(frame: SystemFrame): void {
    for (const observe of this.observers) observe(frame);
    // Ahead of what is queued: a stage must drop a reply before it sees more of its frames.
    this.urgent.push(...this.stages.map((_, i) => ({ frame, to: i, direction: "down" as const })));
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      for (let d = this.urgent.shift() ?? this.queue.shift(); d; d = this.urgent.shift() ?? this.queue.shift()) {
        const stage = this.stages[d.to];
        if (!stage) {
          if (!SYSTEM_FRAMES.has(d.frame.type)) this.sink(d.frame);
          continue;
        }
        const handled = stage.process(d.frame, d.direction);
        if (!handled && !SYSTEM_FRAMES.has(d.frame.type)) {
          this.queue.unshift({ frame: d.frame, to: d.to + (d.direction === "down" ? 1 : -1), direction: d.direction });
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
