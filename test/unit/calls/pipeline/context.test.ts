// The context stage: the one owner of the LLM history and the call's transcript. Scripted frames
// from both sides: transcripts from STT (down), what the caller heard from transport out (up).
import { describe, expect, it } from "vitest";
import { ContextStage } from "../../../../src/calls/pipeline/context";
import type { FrameOf, ToolTurn } from "../../../../src/calls/pipeline/frames";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import type { TranscriptTurn } from "../../../../src/db/schema";
import { Probe } from "./audio";

const CONNECTED = 1_000_000;

function setup() {
  const saved: TranscriptTurn[][] = [];
  const head = new Probe();
  const tail = new Probe();
  const context = new ContextStage({ systemPrompt: "Be brief.", connectedAt: CONNECTED, save: (t) => saved.push(t) });
  const pipeline = new Pipeline([head, context, tail], () => undefined);
  const transcript = (text: string, startMs: number, endMs: number, sttMs = 50) =>
    head.send({
      type: "transcript",
      text,
      sttMs,
      end: {
        type: "turn-end",
        audio: new Int16Array(0),
        speechStartAt: CONNECTED + startMs,
        speechEndAt: CONNECTED + endMs,
        at: 0,
        pause: null,
      },
      turnTaking: { waitMs: 200, endedBy: "silence", speculations: 0, discarded: 0, committed: false, transcriptions: 1 },
    });
  const up = (frame: Parameters<Probe["send"]>[0]) => tail.send(frame, "up");
  return { context, pipeline, head, tail, saved, transcript, up };
}

const tool = (at: number, text = "lookup → ok"): ToolTurn => ({
  role: "tool",
  text,
  at: new Date(CONNECTED + at).toISOString(),
  tool: { name: "lookup", latencyMs: 100 } as ToolTurn["tool"],
});

describe("the context stage", () => {
  it("makes a caller's transcript a user turn and a reply request with the history and the reply's timing", () => {
    const { context, tail, transcript } = setup();
    transcript("Hello there.", 100, 900, 40);
    expect(context.turns).toEqual([expect.objectContaining({ role: "user", text: "Hello there.", startMs: 100, endMs: 900 })]);
    expect(tail.of("notify")).toEqual([{ type: "notify", event: { type: "transcript", role: "user", text: "Hello there." } }]);
    const [reply] = tail.of("reply");
    expect(reply?.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hello there." },
    ]);
    expect(reply?.timing).toEqual({ speechEndAt: CONNECTED + 900, endpointingMs: 200, sttMs: 40, discarded: 0 });
    expect(context.idle).toBe(false);
  });

  it("answers turns one at a time: a turn ended during a reply waits for it, and an empty transcript is no turn", () => {
    const { context, tail, transcript, up } = setup();
    transcript("First.", 0, 500);
    transcript("", 600, 700);
    transcript("Second.", 800, 1200);
    expect(tail.of("reply")).toHaveLength(1);
    expect(context.turns.map((t) => t.text)).toEqual(["First."]);
    const reply = tail.of("reply")[0]?.reply as number;
    up({ type: "agent-started", reply, at: CONNECTED + 1300, latency: null });
    up({ type: "agent-words", reply, text: "Hi." });
    up({ type: "reply-done", reply, tools: [] });
    expect(tail.of("reply")).toHaveLength(2);
    expect(context.turns.map((t) => `${t.role}:${t.text}`)).toEqual(["user:First.", "agent:Hi.", "user:Second."]);
    expect(tail.of("reply")[1]?.messages.map((m) => m.content)).toEqual(["Be brief.", "First.", "Hi.", "Second."]);
  });

  it("writes the agent's turn as it is heard: words, latency, its end once sent, saved and shown", () => {
    const { context, tail, saved, transcript, up } = setup();
    transcript("Hi.", 0, 500);
    const reply = tail.of("reply")[0]?.reply as number;
    const latency = { voiceToVoiceMs: 700, sttMs: 40, llmMs: 300, ttsMs: 200, platformMs: 160 };
    up({ type: "agent-started", reply, at: CONNECTED + 1200, latency });
    up({ type: "agent-words", reply, text: "Hello," });
    up({ type: "agent-words", reply, text: "how can I help?" });
    up({ type: "agent-sent", reply, endsAt: CONNECTED + 3400 });
    const agent = context.turns[1];
    expect(agent).toEqual({ role: "agent", text: "Hello, how can I help?", startMs: 1200, endMs: 3400, latency });
    expect(context.history.at(-1)).toEqual({ role: "assistant", content: "Hello, how can I help?" });
    expect(tail.of("notify").at(-1)?.event).toEqual({ type: "transcript", role: "agent", text: "Hello, how can I help?" });
    expect(saved.at(-1)?.map((t) => t.text)).toEqual(["Hi.", "Hello, how can I help?"]);
  });

  it("tools between words close the turn so far, follow it, and the words go on in a new turn; tools before any words come first", () => {
    const { context, tail, transcript, up } = setup();
    transcript("Book it.", 0, 500);
    const reply = tail.of("reply")[0]?.reply as number;
    up({ type: "agent-started", reply, at: CONNECTED + 1000, latency: null });
    up({ type: "agent-tools", reply, at: CONNECTED + 1000, tools: [tool(900, "early")] }); // nothing said yet
    up({ type: "agent-words", reply, text: "One moment." });
    up({ type: "agent-tools", reply, at: CONNECTED + 2500, tools: [tool(2400)] });
    up({ type: "agent-words", reply, text: "Booked." });
    up({ type: "reply-done", reply, tools: [tool(4000, "after")] });
    expect(context.turns.map((t) => [t.role, t.text, t.startMs, t.endMs])).toEqual([
      ["user", "Book it.", 0, 500],
      ["agent", "One moment.", 1000, 2500],
      ["tool", "early", 800, 900],
      ["tool", "lookup → ok", 2300, 2400],
      ["agent", "Booked.", 2500, 2500],
      ["tool", "after", 3900, 4000],
    ]);
    // the tool's start is never before the words said ahead of it
    up({ type: "agent-started", reply: 99, at: CONNECTED + 5000, latency: null });
    up({ type: "agent-words", reply: 99, text: "Checking," });
    up({ type: "agent-tools", reply: 99, at: CONNECTED + 5050, tools: [tool(5060)] });
    expect(context.turns.at(-2)).toMatchObject({ role: "tool", startMs: 5000, endMs: 5060 });
    expect(context.history.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([
      "One moment.",
      "Booked.",
      "Checking,",
      "",
    ]);
  });

  it("a cut reply keeps what the caller heard, marked interrupted, in the transcript and the history; a dropped one leaves nothing", () => {
    const { context, tail, saved, transcript, up } = setup();
    transcript("Hi.", 0, 500);
    const reply = tail.of("reply")[0]?.reply as number;
    up({ type: "agent-started", reply, at: CONNECTED + 1000, latency: null });
    up({ type: "agent-words", reply, text: "Let me tell you about our plans." });
    up({ type: "agent-cut", reply, heard: "Let me tell", at: CONNECTED + 1800, endAt: CONNECTED + 1800, drop: false, notify: true });
    expect(context.turns[1]).toEqual({ role: "agent", text: "Let me tell", startMs: 1000, endMs: 1800, interrupted: true });
    expect(context.history.at(-1)).toEqual({ role: "assistant", content: "Let me tell" });
    expect(tail.of("notify").at(-1)?.event).toMatchObject({ role: "agent", text: "Let me tell" });
    expect(saved).toHaveLength(1);
    up({ type: "reply-done", reply, tools: [] });
    transcript("Go on.", 2000, 2500);
    const next = tail.of("reply")[1]?.reply as number;
    up({ type: "agent-started", reply: next, at: CONNECTED + 3000, latency: null });
    up({ type: "agent-words", reply: next, text: "Sure." });
    up({ type: "agent-cut", reply: next, heard: "", at: CONNECTED + 3000, endAt: CONNECTED + 3000, drop: true, notify: false });
    expect(context.turns.map((t) => t.text)).toEqual(["Hi.", "Let me tell", "Go on."]);
    expect(context.history.map((m) => m.content)).toEqual(["Be brief.", "Hi.", "Let me tell", "Go on."]);
  });

  it("a false interruption (only backchannels in the turn that cut the agent) resumes what was not heard, without a reply", () => {
    const { context, tail, transcript, up } = setup();
    transcript("Hi.", 0, 500);
    const reply = tail.of("reply")[0]?.reply as number;
    up({ type: "agent-started", reply, at: CONNECTED + 1000, latency: null });
    up({ type: "agent-words", reply, text: "Let me tell you about our plans." });
    const cut = { at: CONNECTED + 1800, endAt: CONNECTED + 1800, drop: false, notify: true };
    up({ type: "agent-cut", reply, heard: "Let me tell", unheard: "you about our plans.", ...cut });
    up({ type: "reply-done", reply, tools: [] });
    transcript("Mhm, yeah.", 1750, 2300); // the sound that cut it
    expect(tail.of("reply")).toHaveLength(1); // no reply asked for
    expect((tail.of("say") as FrameOf<"say">[]).map((f) => f.text)).toEqual(["you about our plans."]);
    expect(context.turns.map((t) => [t.role, t.text])).toEqual([
      ["user", "Hi."],
      ["agent", "Let me tell"],
      ["user", "Mhm, yeah."],
    ]);
    expect(context.resumed).toBe(1);
  });

  it("not a false interruption: words that mean something, or a backchannel said well after the cut, get a reply", () => {
    for (const [said, startMs] of [
      ["Wait, stop.", 1750],
      ["Okay.", 4000],
    ] as const) {
      const { context, tail, transcript, up } = setup();
      transcript("Hi.", 0, 500);
      const reply = tail.of("reply")[0]?.reply as number;
      up({ type: "agent-started", reply, at: CONNECTED + 1000, latency: null });
      up({ type: "agent-words", reply, text: "Let me tell you about our plans." });
      up({
        type: "agent-cut",
        reply,
        heard: "Let me tell",
        unheard: "you about our plans.",
        at: CONNECTED + 1800,
        endAt: CONNECTED + 1800,
        drop: false,
        notify: true,
      });
      up({ type: "reply-done", reply, tools: [] });
      transcript(said, startMs, startMs + 400);
      expect(tail.of("reply"), said).toHaveLength(2);
      expect(tail.of("say")).toHaveLength(0);
      expect(context.resumed).toBe(0);
    }
  });

  it("speaks known text in its place among the replies, and keeps the caller's last words without answering them", () => {
    const { context, tail, transcript, up } = setup();
    context.say("Welcome!");
    transcript("Hi.", 0, 500);
    const [say] = tail.of("say") as FrameOf<"say">[];
    expect(say?.text).toBe("Welcome!");
    expect(tail.of("reply")).toHaveLength(0);
    up({ type: "reply-done", reply: say?.reply as number, tools: [] });
    expect(tail.of("reply")).toHaveLength(1);
    context.addLastWords("Bye then.", CONNECTED + 4000, CONNECTED + 4600);
    expect(context.turns.at(-1)).toEqual({ role: "user", text: "Bye then.", startMs: 4000, endMs: 4600 });
    expect(tail.of("reply")).toHaveLength(1);
  });
});

describe("the context stage's speculative replies", () => {
  const speculative = (s: ReturnType<typeof setup>, text: string) =>
    s.head.send({
      type: "transcript",
      text,
      sttMs: 0,
      speculative: true,
      end: { type: "turn-end", audio: new Int16Array(0), speechStartAt: CONNECTED, speechEndAt: CONNECTED + 800, at: 0, pause: null },
      turnTaking: { waitMs: 110, endedBy: "model", speculations: 1, discarded: 0, committed: true, transcriptions: 0 },
    });

  it("starts the reply at once, shows the caller's line only once confirmed, and commits the reply", () => {
    const s = setup();
    speculative(s, "Book me for Tuesday");
    const [reply] = s.tail.of("reply");
    expect(reply).toMatchObject({ speculative: true, timing: { endpointingMs: 110 } });
    expect(s.tail.of("notify")).toHaveLength(0);
    s.head.send({ type: "turn-outcome", confirmed: true, at: CONNECTED + 1060 });
    expect(s.tail.of("commit")).toEqual([{ type: "commit", reply: reply?.reply, at: CONNECTED + 1060 }]);
    expect(s.tail.of("notify")[0]?.event).toMatchObject({ role: "user", text: "Book me for Tuesday" });
    expect(s.context.turns.map((t) => t.text)).toEqual(["Book me for Tuesday"]);
  });

  it("a discarded speculation takes its reply and its user turn away; the final transcript makes the turn", () => {
    const s = setup();
    speculative(s, "I want to");
    const first = s.tail.of("reply")[0]?.reply as number;
    s.head.send({ type: "turn-outcome", confirmed: false, at: CONNECTED + 900 });
    expect(s.tail.of("discard")).toEqual([{ type: "discard", reply: first }]);
    expect(s.context.turns).toEqual([]);
    expect(s.context.history).toHaveLength(1);
    expect(s.context.idle).toBe(true);
    s.transcript("I want to book a cleaning.", 0, 1500);
    expect(s.tail.of("reply")[1]?.messages.map((m) => m.content)).toEqual(["Be brief.", "I want to book a cleaning."]);
  });

  it("ignores a speculation while a reply is under way, and answers the confirmed turn in its place", () => {
    const s = setup();
    s.transcript("Hi.", 0, 500);
    speculative(s, "And one more thing");
    expect(s.tail.of("reply")).toHaveLength(1);
    const final = {
      type: "transcript" as const,
      text: "And one more thing.",
      sttMs: 0,
      end: {
        type: "turn-end" as const,
        audio: new Int16Array(0),
        speechStartAt: CONNECTED + 600,
        speechEndAt: CONNECTED + 900,
        at: 0,
        pause: null,
      },
      turnTaking: { waitMs: 260, endedBy: "model" as const, speculations: 1, discarded: 0, committed: false, transcriptions: 0 },
    };
    s.head.send({ type: "turn-outcome", confirmed: true, at: CONNECTED + 1160, transcript: final });
    s.up({ type: "reply-done", reply: s.tail.of("reply")[0]?.reply as number, tools: [] });
    expect(s.tail.of("reply").map((r) => r.messages.at(-1)?.content)).toEqual(["Hi.", "And one more thing."]);
    expect(s.tail.of("commit")).toHaveLength(0);
  });
});
