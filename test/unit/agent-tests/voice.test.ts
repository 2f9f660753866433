// The pure pieces of a voice-mode run (src/agent-tests/voice.ts, web-caller.ts, run.ts): the caller's
// side of the web-call protocol on a fake socket and a fake clock (the microphone's pace, a line said,
// marks echoed once the agent's audio has played, a clear, the end), the call's transcript read as a
// run's, its voice-to-voice times, and the latency summary's percentiles.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { latencyOf, percentile } from "../../../src/agent-tests/run";
import { chatTurnsOfCall, voiceToVoiceOf } from "../../../src/agent-tests/voice";
import { type CallerSocket, MIC_FRAME, WebCaller } from "../../../src/agent-tests/web-caller";
import { pcm16FromBytes } from "../../../src/calls/codec";
import type { TranscriptTurn } from "../../../src/db/schema";

class FakeSocket implements CallerSocket {
  sent: Array<string | Uint8Array> = [];
  closedWith: number | null = null;
  private listeners = new Map<string, Array<(e: { data: unknown }) => void>>();
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    this.sent.push(typeof data === "string" ? data : new Uint8Array(data as ArrayBuffer));
  }
  close(code?: number): void {
    this.closedWith = code ?? 1000;
  }
  addEventListener(type: string, listener: (e: { data: unknown }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  emit(type: string, data?: unknown): void {
    for (const l of this.listeners.get(type) ?? []) l({ data });
  }
  get frames(): Int16Array[] {
    return this.sent.filter((m): m is Uint8Array => typeof m !== "string").map((b) => pcm16FromBytes(b));
  }
  get texts(): unknown[] {
    return this.sent.filter((m): m is string => typeof m === "string").map((t) => JSON.parse(t));
  }
}

/** 100 ms of agent audio at 16 kHz (the session's chunk). */
const agentChunk = () => new ArrayBuffer(1_600 * 2);

describe("the caller on the web-call socket", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a 20 ms frame every 20 ms: silence, then a line in real time, then silence again", async () => {
    const socket = new FakeSocket();
    const caller = new WebCaller(socket);
    await vi.advanceTimersByTimeAsync(100);
    expect(socket.frames.length).toBe(6); // at 0, 20, …, 100 ms
    expect(socket.frames.every((f) => f.length === MIC_FRAME && f.every((s) => s === 0))).toBe(true);

    const line = new Int16Array(MIC_FRAME * 3 - 10).fill(1_000);
    const before = socket.frames.length;
    let endedAt = 0;
    const saying = caller.say(line).then((at) => {
      endedAt = at;
    });
    expect(() => caller.say(line)).toThrow(/already speaking/);
    await vi.advanceTimersByTimeAsync(60);
    await saying;
    const spoken = socket.frames.slice(before, before + 3);
    expect(spoken.map((f) => f.filter((s) => s === 1_000).length)).toEqual([MIC_FRAME, MIC_FRAME, MIC_FRAME - 10]);
    expect(endedAt).toBe(1_000_000 + 160); // the frame sent at 160 ms carried its end
    await vi.advanceTimersByTimeAsync(40);
    expect(socket.frames.at(-1)?.every((s) => s === 0)).toBe(true);
    caller.close();
    const sent = socket.frames.length;
    await vi.advanceTimersByTimeAsync(100);
    expect(socket.frames.length).toBe(sent);
    expect(socket.closedWith).toBe(1000);
  });

  it("plays the agent's audio in real time and echoes a mark once playback reaches it; a clear drops the rest", async () => {
    const socket = new FakeSocket();
    const caller = new WebCaller(socket);
    socket.emit("message", JSON.stringify({ type: "status", status: "in-progress" }));
    expect(caller.live).toBe(true);
    for (let i = 0; i < 5; i++) socket.emit("message", agentChunk()); // 500 ms of audio at once
    socket.emit("message", JSON.stringify({ type: "mark", name: "reply-0" }));
    socket.emit("message", JSON.stringify({ type: "transcript", role: "agent", text: "Hello there." }));
    expect(caller.marks).toBe(1);
    expect(caller.audioMessages).toBe(5);
    expect(caller.heard).toEqual([{ role: "agent", text: "Hello there." }]);
    expect(caller.playedOut()).toBe(false);
    await vi.advanceTimersByTimeAsync(490);
    expect(socket.texts).toEqual([]);
    await vi.advanceTimersByTimeAsync(10);
    expect(socket.texts).toEqual([{ type: "mark", name: "reply-0" }]);
    expect(caller.playedOut()).toBe(true);

    for (let i = 0; i < 5; i++) socket.emit("message", agentChunk());
    socket.emit("message", JSON.stringify({ type: "clear" }));
    expect(caller.playedOut()).toBe(true);
    socket.emit("message", JSON.stringify({ type: "mark", name: "reply-1" }));
    await vi.advanceTimersByTimeAsync(0);
    expect(socket.texts.at(-1)).toEqual({ type: "mark", name: "reply-1" });
    caller.close();
  });

  it("waits for a condition until a deadline, and knows the call is over when the session ends it or the socket closes", async () => {
    const socket = new FakeSocket();
    const caller = new WebCaller(socket);
    const timedOut = caller.waitFor(() => caller.marks > 0, Date.now() + 100);
    await vi.advanceTimersByTimeAsync(100);
    await expect(timedOut).resolves.toBe(false);

    const marked = caller.waitFor(() => caller.marks > 0, Date.now() + 1_000);
    socket.emit("message", JSON.stringify({ type: "mark", name: "reply-0" }));
    await vi.advanceTimersByTimeAsync(0);
    await expect(marked).resolves.toBe(true);

    caller.hangup();
    expect(socket.texts).toContainEqual({ type: "hangup" });
    socket.emit("message", JSON.stringify({ type: "ended", reason: "customer-ended-call" }));
    expect(caller.gone).toBe(true);
    expect(caller.endedReason).toBe("customer-ended-call");
    // A line said once the socket closed ends at once, and the microphone stops.
    socket.emit("close");
    await expect(caller.say(new Int16Array(16_000))).resolves.toBeTypeOf("number");
    const sent = socket.sent.length;
    await vi.advanceTimersByTimeAsync(100);
    expect(socket.sent.length).toBe(sent);
    await expect(caller.waitFor(() => false, Date.now() + 10_000)).resolves.toBe(false);
  });
});

describe("a voice run's call, read", () => {
  const startedAt = new Date("2026-05-01T10:00:00.000Z");
  const transcript: TranscriptTurn[] = [
    { role: "agent", text: "Hello.", startMs: 100, endMs: 900 },
    { role: "user", text: "Where is my order?", startMs: 1_500, endMs: 2_800 },
    {
      role: "agent",
      text: "Let me look.",
      startMs: 3_600,
      endMs: 4_500,
      latency: { voiceToVoiceMs: 800, sttMs: 0, llmMs: 400, ttsMs: 90, platformMs: 50 },
    },
    {
      role: "tool",
      text: "lookup_order",
      startMs: 4_500,
      endMs: 4_700,
      tool: { name: "lookup_order", arguments: { id: "7" }, outcome: "ok", result: "shipped", latencyMs: 200 },
    } as TranscriptTurn,
    { role: "agent", text: "It shipped.", startMs: 4_700, endMs: 5_600 },
    { role: "user", text: "Thanks.", startMs: 6_000, endMs: 6_600 },
    {
      role: "agent",
      text: "You are welcome.",
      startMs: 7_300,
      endMs: 8_000,
      latency: { voiceToVoiceMs: 700, sttMs: 0, llmMs: 300, ttsMs: 90, platformMs: 40 },
    },
  ];

  it("as a run's transcript: each turn at its time from the call's start, tool turns with their detail", () => {
    const turns = chatTurnsOfCall({ transcript, startedAt, createdAt: new Date(0) });
    expect(turns.map((t) => [t.role, t.text, t.at])).toEqual([
      ["agent", "Hello.", "2026-05-01T10:00:00.100Z"],
      ["user", "Where is my order?", "2026-05-01T10:00:01.500Z"],
      ["agent", "Let me look.", "2026-05-01T10:00:03.600Z"],
      ["tool", "lookup_order", "2026-05-01T10:00:04.500Z"],
      ["agent", "It shipped.", "2026-05-01T10:00:04.700Z"],
      ["user", "Thanks.", "2026-05-01T10:00:06.000Z"],
      ["agent", "You are welcome.", "2026-05-01T10:00:07.300Z"],
    ]);
    expect(turns[3]?.tool).toMatchObject({ name: "lookup_order", arguments: { id: "7" }, outcome: "ok" });
    // A call that never connected counts from its creation.
    expect(chatTurnsOfCall({ transcript: transcript.slice(0, 1), startedAt: null, createdAt: startedAt })[0]?.at).toBe(
      "2026-05-01T10:00:00.100Z",
    );
  });

  it("its voice-to-voice times: one per reply to the caller, the words after a tool round not counted again", () => {
    expect(voiceToVoiceOf({ transcript })).toEqual([800, 700]);
    expect(voiceToVoiceOf({ transcript: [] })).toEqual([]);
  });
});

describe("the latency summary", () => {
  it("counts, averages and takes nearest-rank percentiles", () => {
    expect(latencyOf([900, 700, 800, 1_600])).toEqual({
      turns: 4,
      averageMs: 1_000,
      p50Ms: 800,
      p95Ms: 1_600,
      maxMs: 1_600,
      totalMs: 4_000,
    });
    expect(latencyOf([])).toEqual({ turns: 0, averageMs: null, p50Ms: null, p95Ms: null, maxMs: null, totalMs: 0 });
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(hundred, 0.5), percentile(hundred, 0.95), percentile(hundred, 1)]).toEqual([50, 95, 100]);
    expect(percentile([42], 0.95)).toBe(42);
  });
});
