// A call's machine detection as its session follows it (src/calls/voicemail.ts): who holds the first
// message, what each verdict asks of the session, and the hold's cap.
import { describe, expect, it } from "vitest";
import { DETECTION_HOLD_MS, detects, MachineDetection } from "../../../src/calls/voicemail";

const leave = { detection: "leave-message" as const, message: "Hi {{customer}}, please call {{unknown}} back." };
const hangUp = { detection: "hang-up" as const, message: null };
const T0 = 1_000_000;

describe("detects", () => {
  it("only outbound phone calls of an agent whose detection is on", () => {
    const on = { voicemail: hangUp };
    expect(detects({ type: "phone", direction: "outbound" }, on)).toBe(true);
    expect(detects({ type: "phone", direction: "inbound" }, on)).toBe(false);
    expect(detects({ type: "web", direction: "web" }, on)).toBe(false);
    expect(detects({ type: "phone", direction: "outbound" }, { voicemail: { detection: "off", message: null } })).toBe(false);
  });
});

describe("MachineDetection", () => {
  it("a person: holds until the verdict, then the conversation; later verdicts change nothing", () => {
    const d = new MachineDetection(leave, { customer: "Ada" }, true, T0);
    expect([d.pending, d.muted]).toEqual([true, true]);
    expect(d.verdict("human")).toEqual({ kind: "converse" });
    expect([d.pending, d.muted, d.leavingMessage]).toEqual([false, false, false]);
    expect(d.verdict("human")).toEqual({ kind: "none" });
    expect(d.expired(T0 + DETECTION_HOLD_MS)).toBe(false);
  });

  it("unknown counts as a person", () => {
    expect(new MachineDetection(hangUp, {}, true, T0).verdict("unknown")).toEqual({ kind: "converse" });
  });

  it("a machine: hang up, or the message with its variables filled (an unknown name left as written), muted while it plays", () => {
    expect(new MachineDetection(hangUp, {}, true, T0).verdict("machine_start")).toEqual({ kind: "hang-up" });
    const d = new MachineDetection(leave, { customer: "Ada" }, true, T0);
    expect(d.verdict("machine_end_beep")).toEqual({ kind: "leave-message", text: "Hi Ada, please call {{unknown}} back." });
    expect([d.pending, d.muted, d.leavingMessage]).toEqual([false, true, true]);
    expect(d.verdict("machine_end_silence")).toEqual({ kind: "none" });
  });

  it("a fax is hung up on whatever the plan", () => {
    expect(new MachineDetection(leave, {}, true, T0).verdict("fax")).toEqual({ kind: "hang-up" });
    expect(new MachineDetection(hangUp, {}, true, T0).verdict("fax")).toEqual({ kind: "hang-up" });
  });

  it("the hold runs out after DETECTION_HOLD_MS: the agent speaks, and a machine heard later still acts", () => {
    const d = new MachineDetection(leave, {}, true, T0);
    expect(d.expired(T0 + DETECTION_HOLD_MS - 1)).toBe(false);
    expect(d.expired(T0 + DETECTION_HOLD_MS)).toBe(true);
    expect(d.expired(T0 + DETECTION_HOLD_MS + 1)).toBe(false);
    expect([d.pending, d.muted]).toEqual([false, false]);
    expect(d.verdict("human")).toEqual({ kind: "none" });
    expect(d.verdict("machine_end_beep")).toMatchObject({ kind: "leave-message" });
  });

  it("off: nothing held, every verdict ignored", () => {
    const d = new MachineDetection({ detection: "off", message: null }, {}, false, T0);
    expect([d.pending, d.muted]).toEqual([false, false]);
    expect(d.verdict("machine_end_beep")).toEqual({ kind: "none" });
    expect(d.expired(T0 + DETECTION_HOLD_MS)).toBe(false);
  });
});
