// The keypad in the pipeline: key frames from the transport grouped by the keypad stage into one
// caller turn for the context (a `[keypad]` user turn with its keys, and a reply request timed from
// the last key), the first key cutting the agent off; a pause ends an entry on the session's tick.
import { describe, expect, it } from "vitest";
import { KEYPAD_GAP_MS } from "../../../../src/calls/keypad";
import { ContextStage } from "../../../../src/calls/pipeline/context";
import { KeypadStage } from "../../../../src/calls/pipeline/keypad";
import { Pipeline } from "../../../../src/calls/pipeline/pipeline";
import { Probe } from "./audio";

const CONNECTED = 1_000_000;

function setup() {
  const head = new Probe();
  const keypad = new KeypadStage();
  const context = new ContextStage({ systemPrompt: "Be brief.", connectedAt: CONNECTED, save: () => undefined });
  const tail = new Probe();
  new Pipeline([head, keypad, context, tail], () => undefined);
  const key = (digit: string, ms: number) => head.send({ type: "key", digit, at: CONNECTED + ms });
  return { head, keypad, context, tail, key };
}

describe("the keypad stage", () => {
  it("makes keys ended by # one caller turn and a reply, without waiting", () => {
    const { keypad, context, tail, key } = setup();
    key("1", 2_000);
    expect(keypad.idle).toBe(false);
    key("2", 2_300);
    expect(tail.of("reply")).toEqual([]);
    key("#", 2_600);
    expect(keypad.idle).toBe(true);
    expect(context.turns).toEqual([{ role: "user", text: "[keypad] 1 2 #", startMs: 2_000, endMs: 2_600, dtmf: "12#" }]);
    const [reply] = tail.of("reply");
    expect(reply?.messages.at(-1)).toEqual({ role: "user", content: "[keypad] 1 2 #" });
    expect(reply?.timing).toEqual({ speechEndAt: CONNECTED + 2_600, endpointingMs: 0, sttMs: 0, discarded: 0 });
    expect(tail.of("notify")).toEqual([{ type: "notify", event: { type: "transcript", role: "user", text: "[keypad] 1 2 #" } }]);
  });

  it("the first key of an entry cuts the agent off (once), and a pause ends the entry on the tick", () => {
    const { keypad, context, tail, key } = setup();
    key("5", 1_000);
    key("5", 1_200);
    expect(tail.of("keys-pressed")).toEqual([{ type: "keys-pressed", at: CONNECTED + 1_000 }]);
    keypad.tick(CONNECTED + 1_200 + KEYPAD_GAP_MS - 1);
    expect(context.turns).toEqual([]);
    keypad.tick(CONNECTED + 1_200 + KEYPAD_GAP_MS + 150);
    expect(context.turns).toEqual([{ role: "user", text: "[keypad] 5 5", startMs: 1_000, endMs: 1_200 + KEYPAD_GAP_MS, dtmf: "55" }]);
    expect(tail.of("reply")[0]?.timing).toMatchObject({ speechEndAt: CONNECTED + 1_200, endpointingMs: KEYPAD_GAP_MS });
    key("9", 9_000);
    expect(tail.of("keys-pressed")).toHaveLength(2);
  });

  it("passes every other frame on", () => {
    const { tail, head } = setup();
    head.send({ type: "mark", name: "m", at: 1 });
    expect(tail.of("mark")).toHaveLength(1);
  });
});
