// The LLM stage with a scripted provider port: the reply's text cut into chunks as it streams,
// tool turns riding with the words after them, the history of tool rounds going up, the reply's
// decisions at its end, cancellation on an interruption, and failures.
import { describe, expect, it } from "vitest";
import type { FrameOf, ToolTurn } from "../../../../src/calls/pipeline/frames";
import { type LlmPort, LlmStage } from "../../../../src/calls/pipeline/llm";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { ProviderError } from "../../../../src/providers/http";
import type { AgentTurn } from "../../../../src/tools/runtime";
import { fakeClock, flushed, Probe } from "./audio";

const TIMING = { speechEndAt: 5_000, endpointingMs: 200, sttMs: 30, discarded: 0 };
const toolTurn: ToolTurn = {
  role: "tool",
  text: "lookup → ok",
  at: new Date(0).toISOString(),
  tool: { name: "lookup" } as ToolTurn["tool"],
};
const done = (over: Partial<AgentTurn> = {}): AgentTurn => ({ text: "", turns: [], toolCalls: 0, ended: false, transfer: null, ...over });

interface Scripted {
  pieces: string[];
  signal?: AbortSignal;
}

/** A provider whose streamed round gives `pieces` one by one when the test says so. */
function setup(
  script: (port: { rounds: Scripted[] }, live: Parameters<LlmPort["turn"]>[1], say?: (t: string) => Promise<void>) => Promise<AgentTurn>,
  mode?: "serial",
) {
  const clock = fakeClock(10_000);
  const state = { rounds: [] as Scripted[] };
  const port: LlmPort = {
    turn: (_messages, live, say) => script(state, live, say),
    async stream(_messages, _offer, onText, signal) {
      const round: Scripted = { pieces: [], signal };
      state.rounds.push(round);
      const text = ["Sure, I can help with that. ", "Your table ", "is booked."];
      for (const piece of text) {
        clock.t += 100;
        if (signal.aborted) throw new ProviderError("canceled", "cancelled");
        onText(piece);
        await flushed();
      }
      return { text: text.join(""), toolCalls: [] };
    },
  };
  const head = new Probe();
  const tail = new Probe();
  const llm = new LlmStage(port, clock, mode);
  const pipeline = new Pipeline([head, llm, tail], () => undefined);
  const reply = (n = 1) => head.send({ type: "reply", reply: n, messages: [{ role: "user", content: "Book it." }], timing: TIMING });
  return { clock, head, tail, llm, pipeline, reply, state };
}

describe("the LLM stage", () => {
  it("streams the reply in chunks (the first at a clause), each with the time to the first one, then its end", async () => {
    const { tail, reply } = setup(async (_s, live) => {
      const answer = await live.round?.([], {});
      return done({ text: answer?.content ?? "" });
    });
    reply();
    for (let i = 0; i < 6; i++) await flushed();
    const texts = tail.of("llm-text");
    expect(texts.map((t) => t.text)).toEqual(["Sure, I can help with that.", "Your table is booked."]);
    expect(texts.every((t) => t.llmMs === 100 && t.timing === TIMING && t.reply === 1)).toBe(true);
    expect(tail.of("llm-done")).toEqual([{ type: "llm-done", reply: 1, after: { ended: false, transfer: null }, tools: [] }]);
  });

  it("sends a sentence's clauses down as they are written (`partial`), each with when it was cut", async () => {
    const clock = fakeClock(10_000);
    const port: LlmPort = {
      turn: async (_m, live) => done({ text: (await live.round?.([], {}))?.content ?? "" }),
      async stream(_m, _o, onText) {
        const text = ["Sure. ", "I can check ", "that for you, ", "it will ", "take a second. ", "Done."];
        for (const piece of text) {
          clock.t += 100;
          onText(piece);
        }
        return { text: text.join(""), toolCalls: [] };
      },
    };
    const head = new Probe();
    const tail = new Probe();
    new Pipeline([head, new LlmStage(port, clock), tail], () => undefined);
    head.send({ type: "reply", reply: 1, messages: [], timing: TIMING });
    await flushed();
    expect(tail.of("llm-text").map((t) => [t.text, t.partial ?? false, t.at, t.llmMs, t.firstAt])).toEqual([
      ["Sure.", false, 10_100, 100, 10_100],
      ["I can check that for you,", true, 10_300, 100, 10_100],
      ["it will take a second.", false, 10_500, 100, 10_100],
      ["Done.", false, 10_600, 100, 10_100],
    ]);
  });

  it("sends a tool round's messages up for the history, and its tool turns with the next words (or at the end)", async () => {
    const { head, tail, reply } = setup(async (_s, live, say) => {
      await say?.("One moment.");
      live.onToolRound?.(
        [
          { role: "assistant", content: null, tool_calls: [] },
          { role: "tool", content: "ok", tool_call_id: "1" },
        ],
        [toolTurn],
      );
      await say?.("Done.");
      live.onToolRound?.([], [toolTurn]);
      return done({ ended: true });
    });
    reply();
    await flushed();
    expect(head.of("history")).toHaveLength(2);
    expect(tail.of("llm-text").map((t) => [t.text, t.tools.length])).toEqual([
      ["One moment.", 0],
      ["Done.", 1],
    ]);
    expect(tail.of("llm-done")[0]).toMatchObject({ after: { ended: true, transfer: null }, tools: [toolTurn] });
  });

  it("an interruption cancels the reply in flight: its request is aborted, no more words go down, and that is no failure", async () => {
    const { tail, reply, pipeline, state } = setup(async (_s, live) => {
      await live.round?.([], {});
      return done();
    });
    reply();
    await flushed();
    expect(tail.of("llm-text")).toHaveLength(1);
    pipeline.push({ type: "interruption", reply: 1, at: 0 });
    for (let i = 0; i < 6; i++) await flushed();
    expect(state.rounds[0]?.signal?.aborted).toBe(true);
    expect(tail.of("llm-text")).toHaveLength(1);
    expect(tail.of("error")).toHaveLength(0);
    expect(tail.of("llm-done")).toHaveLength(1);
    // another reply's interruption leaves this one alone
    reply(2);
    await flushed();
    pipeline.push({ type: "interruption", reply: 7, at: 0 });
    expect(state.rounds[1]?.signal?.aborted).toBe(false);
  });

  it("a provider failure is an LLM error frame (the session ends the call), and the reply still ends", async () => {
    const { tail, reply } = setup(async () => {
      throw new ProviderError("upstream", "upstream 500", 500);
    });
    reply();
    await flushed();
    const [error] = tail.of("error") as FrameOf<"error">[];
    expect(error?.stage).toBe("llm");
    expect((error?.error as Error).message).toBe("upstream 500");
    expect(tail.of("llm-done")).toHaveLength(1);
  });

  it("serial: the whole answer (the tools' messages leading it) as one chunk, after the LLM is done", async () => {
    const { tail, reply, clock } = setup(async () => {
      clock.t += 700;
      return done({ text: "It is booked.", turns: [{ role: "agent", text: "Let me check.", at: "" }] });
    }, "serial");
    reply();
    await flushed();
    expect(tail.of("llm-text").map((t) => [t.text, t.llmMs])).toEqual([["Let me check. It is booked.", 700]]);
  });
});

describe("the LLM stage's speculative replies", () => {
  const speculative = (s: ReturnType<typeof setup>) =>
    s.head.send({ type: "reply", reply: 1, messages: [{ role: "user", content: "Book it." }], timing: TIMING, speculative: true });

  it("streams words at once but holds its tools until the commit", async () => {
    let toolsRan = false;
    const s = setup(async (_s, live) => {
      await live.round?.([], {}); // the scripted stream has no tool calls: words only
      return done();
    });
    speculative(s);
    for (let i = 0; i < 6; i++) await flushed();
    expect(s.tail.of("llm-text").length).toBeGreaterThan(0);
    // a round with a tool call waits for the commit before the runtime may run the tool
    const port: LlmPort = {
      turn: async (_m, live) => {
        await live.round?.([], {});
        toolsRan = true;
        return done();
      },
      stream: async () => ({ text: "", toolCalls: [{ id: "1", type: "function", function: { name: "book", arguments: "{}" } }] }),
    };
    const head = new Probe();
    const tail = new Probe();
    const p = new Pipeline([head, new LlmStage(port, fakeClock())], () => undefined);
    void tail;
    head.send({ type: "reply", reply: 2, messages: [], timing: TIMING, speculative: true });
    for (let i = 0; i < 4; i++) await flushed();
    expect(toolsRan).toBe(false);
    p.push({ type: "commit", reply: 2, at: 0 }, 1);
    for (let i = 0; i < 4; i++) await flushed();
    expect(toolsRan).toBe(true);
  });

  it("a discard cancels the request in flight and its tools never run, without an error", async () => {
    let toolsRan = false;
    let signal: AbortSignal | undefined;
    const port: LlmPort = {
      turn: async (_m, live) => {
        await live.round?.([], {});
        toolsRan = true;
        return done();
      },
      stream: async (_m, _o, _t, s) => {
        signal = s;
        return { text: "", toolCalls: [{ id: "1", type: "function", function: { name: "book", arguments: "{}" } }] };
      },
    };
    const head = new Probe();
    const tail = new Probe();
    const p = new Pipeline([head, new LlmStage(port, fakeClock()), tail], () => undefined);
    head.send({ type: "reply", reply: 3, messages: [], timing: TIMING, speculative: true });
    await flushed();
    p.push({ type: "discard", reply: 3 }, 1);
    for (let i = 0; i < 4; i++) await flushed();
    expect(signal?.aborted).toBe(true);
    expect(toolsRan).toBe(false);
    expect(tail.of("error")).toHaveLength(0);
    expect(tail.of("discard")).toHaveLength(1); // passed on to TTS
    expect(tail.of("llm-done")).toHaveLength(1);
  });
});
