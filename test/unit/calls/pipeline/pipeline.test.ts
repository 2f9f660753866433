// The pipeline itself: frames through stages in order, unknown frames passed on, frames up,
// system frames to every stage ahead of what is queued, observers, the sink, tracked work.
import { describe, expect, it } from "vitest";
import type { Direction, Frame } from "../../../../src/calls/pipeline/frames";
import { Pipeline, Stage } from "../../../../src/calls/pipeline/pipeline";
import { flushed, Probe } from "./audio";

/** Answers a `mark` with a `notify` down and an `end-turn` up; passes everything else on. */
class Echo extends Stage {
  readonly name = "echo";
  readonly seen: string[] = [];
  process(frame: Frame, direction: Direction): boolean {
    this.seen.push(`${frame.type}:${direction}`);
    if (frame.type !== "mark") return false;
    this.push({ type: "notify", event: { name: frame.name } });
    this.push({ type: "end-turn", pause: 1, at: frame.at }, "up");
    return true;
  }
  later(work: Promise<unknown>): void {
    void this.track(work);
  }
}

describe("the pipeline", () => {
  it("passes a frame a stage does not handle to the next one, in the direction it travels, and out to the sink", () => {
    const head = new Probe();
    const echo = new Echo();
    const tail = new Probe();
    const out: Frame[] = [];
    const observed: string[] = [];
    const p = new Pipeline([head, echo, tail], (f) => out.push(f), [(f) => observed.push(f.type)]);
    p.push({ type: "mark", name: "m", at: 5 }, 1);
    expect(tail.of("notify")).toEqual([{ type: "notify", event: { name: "m" } }]);
    expect(head.frames).toEqual([{ frame: { type: "end-turn", pause: 1, at: 5 }, direction: "up" }]);
    // unknown to the echo: passed down to the tail, which keeps it (nothing reaches the sink)
    p.push({ type: "speech-started", at: 1 }, 1);
    expect(tail.of("speech-started")).toHaveLength(1);
    expect(echo.seen).toEqual(["mark:down", "speech-started:down"]);
    expect(out).toEqual([]);
    // a pipeline whose last stage passes: the frame leaves to the sink
    const alone = new Pipeline([new Echo()], (f) => out.push(f));
    alone.push({ type: "speech-started", at: 2 });
    expect(out).toEqual([{ type: "speech-started", at: 2 }]);
    expect(observed).toEqual(["mark", "notify", "end-turn", "speech-started"]);
  });

  it("keeps the order frames were pushed in, and delivers a system frame to every stage ahead of what is queued", () => {
    const order: string[] = [];
    class Recorder extends Stage {
      readonly name: string;
      constructor(name: string) {
        super();
        this.name = name;
      }
      process(frame: Frame): boolean {
        order.push(`${this.name}:${frame.type}`);
        if (this.name === "a" && frame.type === "mark") {
          this.push({ type: "speech-started", at: 1 });
          this.broadcast({ type: "end" }); // reaches b before the speech-started queued ahead of it
        }
        return frame.type === "end";
      }
    }
    const p = new Pipeline([new Recorder("a"), new Recorder("b")], () => undefined);
    p.push({ type: "mark", name: "x", at: 0 });
    expect(order).toEqual(["a:mark", "a:end", "b:end", "b:mark", "b:speech-started"]);
    // system frames go to the sink never, and to every stage even pushed into the middle
    order.length = 0;
    p.push({ type: "hangup", at: 3 }, 1);
    expect(order).toEqual(["a:hangup", "b:hangup"]);
  });

  it("settles once the stages' tracked work has, including work started meanwhile", async () => {
    const echo = new Echo();
    const p = new Pipeline([echo], () => undefined);
    let release: () => void = () => undefined;
    let second = false;
    echo.later(
      new Promise<void>((r) => {
        release = r;
      }).then(() => echo.later(flushed().then(() => (second = true)))),
    );
    let settled = false;
    void p.settled().then(() => (settled = true));
    await flushed();
    expect(settled).toBe(false);
    release();
    await flushed();
    await flushed();
    await flushed();
    expect(second).toBe(true);
    expect(settled).toBe(true);
  });
});
