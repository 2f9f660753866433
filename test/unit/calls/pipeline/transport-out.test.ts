// Transport out with a recording transport: audio to the caller, a mark after each reply, the
// barge-in (clear, interruption, what was heard), a hang-up mid-reply, and what a reply decided
// once it has played (an end-call phrase, end_call, a transfer).
import { describe, expect, it } from "vitest";
import type { Frame, FrameOf } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { MARK_GRACE_MS, TransportOutStage } from "../../../../src/calls/pipeline/transport-out";
import type { Transport } from "../../../../src/calls/transports";
import { fakeClock, Probe } from "./audio";

function setup(phrases: string[] = ["goodbye"]) {
  const clock = fakeClock(0);
  const sent: string[] = [];
  const transport: Transport = {
    kind: "web",
    sampleRate: 8000,
    sendAudio: (s) => sent.push(`audio:${s.length}`),
    sendMark: (n) => sent.push(`mark:${n}`),
    clear: () => sent.push("clear"),
    notify: (e) => sent.push(`notify:${JSON.stringify(e)}`),
    close: () => sent.push("close"),
  };
  const head = new Probe();
  const out = new TransportOutStage(transport, phrases, clock);
  const sink: Frame[] = [];
  const seen: Frame[] = [];
  const pipeline = new Pipeline([head, out], (f) => sink.push(f), [(f) => seen.push(f)]);
  /** A reply of `chunks` (each 1 s of audio) starting at `at`, sent whole. */
  const play = (reply: number, chunks: string[], at: number, done = true) => {
    clock.t = at;
    head.send({ type: "first-audio", reply, at, latency: null });
    chunks.forEach((text, i) => {
      head.send({ type: "chunk-started", reply, text, startAt: at + i * 1000, tools: [] });
      head.send({ type: "audio-out", reply, samples: new Int16Array(8000), at, playhead: at + (i + 1) * 1000 });
    });
    if (done) head.send({ type: "speech-done", reply, after: { ended: false, transfer: null }, tools: [], cut: false });
  };
  return { clock, sent, head, out, sink, seen, pipeline, play };
}

describe("transport out", () => {
  it("sends the audio, a mark once the reply is sent whole, and forgets the reply when the mark comes back", () => {
    const { sent, head, out, play, pipeline } = setup();
    play(1, ["Hello there.", "How can I help?"], 1000);
    expect(sent).toEqual(["audio:8000", "audio:8000", "mark:reply-1"]);
    expect(head.of("agent-started")[0]).toMatchObject({ reply: 1, at: 1000 });
    expect(head.of("agent-words").map((w) => w.text)).toEqual(["Hello there.", "How can I help?"]);
    expect(head.of("agent-sent")).toEqual([{ type: "agent-sent", reply: 1, endsAt: 3000 }]);
    expect(head.of("reply-done")).toHaveLength(1);
    expect(out.playing?.mark).toBe("reply-1");
    pipeline.push({ type: "mark", name: "reply-0", at: 3000 }, 1); // not ours
    expect(out.playing).not.toBeNull();
    pipeline.push({ type: "mark", name: "reply-1", at: 3000 }, 1);
    expect(out.playing).toBeNull();
  });

  it("the caller speaking over the reply: its audio cleared, an interruption to every stage, what was heard up", () => {
    const { sent, head, seen, play, pipeline } = setup();
    play(1, ["Our plans start at ten dollars.", "Shall I go on?"], 1000, false); // still streaming
    pipeline.push({ type: "speech-started", at: 1500 }, 1);
    expect(sent.at(-1)).toBe("clear");
    expect(seen.find((f) => f.type === "interruption")).toEqual({ type: "interruption", reply: 1, at: 1500 });
    const [cut] = head.of("agent-cut") as FrameOf<"agent-cut">[];
    // half of the first chunk's six words played
    // half of the first chunk's six words played; the rest of what was made is not heard
    expect(cut).toEqual({
      type: "agent-cut",
      reply: 1,
      heard: "Our plans start",
      unheard: "at ten dollars. Shall I go on?",
      at: 1500,
      endAt: 1500,
      drop: false,
      notify: true,
    });
    // speech with nothing playing interrupts nothing
    pipeline.push({ type: "speech-started", at: 4000 }, 1);
    expect(head.of("agent-cut")).toHaveLength(1);
  });

  it("a hang-up while streaming and heard of nothing drops the reply; once sent whole and shown, it is kept as sent", () => {
    const a = setup();
    a.play(1, ["Hello and welcome to the clinic."], 1000, false);
    a.pipeline.push({ type: "hangup", at: 1050 });
    expect(a.head.of("agent-cut")[0]).toMatchObject({ heard: "", drop: true });
    // sent whole (its mark out, its transcript line shown on the page), then the page closed before playing a word
    const b = setup();
    b.play(1, ["Hello and welcome to the clinic."], 1000);
    b.pipeline.push({ type: "hangup", at: 1050 });
    expect(b.head.of("agent-cut")[0]).toMatchObject({ heard: "Hello and welcome to the clinic.", drop: false, endAt: 1050 });
    // heard to its end: nothing to change
    const c = setup();
    c.play(1, ["Hi."], 1000);
    c.pipeline.push({ type: "hangup", at: 2500 });
    expect(c.head.of("agent-cut")).toHaveLength(0);
  });

  it("after the reply has played: an end-call phrase or end_call ends the call, a transfer hands it on", () => {
    const { head, sink, play, pipeline } = setup();
    play(1, ["Thanks, goodbye!"], 1000);
    expect(sink).toHaveLength(0); // not before it was heard
    pipeline.push({ type: "mark", name: "reply-1", at: 2000 }, 1);
    expect(sink).toEqual([{ type: "action", action: { kind: "end", reason: "agent-ended-call" } }]);
    const t = setup();
    const to = { number: "+15550001111", name: "Front desk" };
    t.play(1, ["Transferring you now."], 1000, false);
    t.head.send({ type: "speech-done", reply: 1, after: { ended: false, transfer: to }, tools: [], cut: false });
    t.pipeline.push({ type: "mark", name: "reply-1", at: 2000 }, 1);
    expect(t.sink).toEqual([{ type: "action", action: { kind: "hand-on", to } }]);
    // a reply with no words (cut before any audio) still does what it decided
    const e = setup();
    e.head.send({ type: "speech-done", reply: 3, after: { ended: true, transfer: null }, tools: [], cut: true });
    expect(e.sink).toEqual([{ type: "action", action: { kind: "end", reason: "agent-ended-call" } }]);
    expect(head.of("reply-done")).toHaveLength(1);
  });

  it("a mark that never comes back stops counting as playing once overdue", () => {
    const { out, play } = setup();
    play(1, ["Hello."], 1000);
    out.tick(2000 + MARK_GRACE_MS);
    expect(out.playing).not.toBeNull();
    out.tick(2001 + MARK_GRACE_MS);
    expect(out.playing).toBeNull();
  });

  it("send_dtmf's keys are pressed once the reply has played; a key press cuts the agent off like speech", () => {
    const { sink, play, head, pipeline, sent } = setup();
    play(1, ["Pressing one."], 1000, false);
    head.send({ type: "speech-done", reply: 1, after: { ended: false, transfer: null, dtmf: "1w2" }, tools: [], cut: false });
    expect(sink).toEqual([]);
    pipeline.push({ type: "mark", name: "reply-1", at: 2000 }, 1);
    expect(sink).toEqual([{ type: "action", action: { kind: "press", digits: "1w2" } }]);
    play(2, ["Press one to confirm."], 3000, false);
    pipeline.push({ type: "keys-pressed", at: 3500 }, 1);
    expect(sent.at(-1)).toBe("clear");
    expect(head.of("agent-cut").at(-1)).toMatchObject({ reply: 2, at: 3500 });
  });
});
