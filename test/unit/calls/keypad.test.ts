// The keypad (src/calls/keypad.ts): the caller's keys grouped into entries on a clock the test
// sets (`#`, the longest entry or a pause ends one), how an entry reads, and which keys send_dtmf may press.
import { describe, expect, it } from "vitest";
import {
  dtmfPlayMs,
  dtmfProblem,
  KEYPAD_GAP_MS,
  KeypadBuffer,
  keypadText,
  MAX_DTMF_DIGITS,
  MAX_ENTRY_KEYS,
} from "../../../src/calls/keypad";

const T0 = 1_000_000;

describe("the caller's keys, grouped", () => {
  it("keys pressed close together are one entry, which `#` ends at once", () => {
    const pad = new KeypadBuffer();
    expect(pad.press("1", T0)).toBeNull();
    expect(pad.press("2", T0 + 400)).toBeNull();
    expect(pad.due(T0 + 400 + KEYPAD_GAP_MS - 1)).toBeNull();
    expect(pad.press("#", T0 + 900)).toEqual({ digits: "12#", startAt: T0, lastAt: T0 + 900, endAt: T0 + 900 });
    expect(pad.open).toBe(false);
    expect(pad.due(T0 + 10_000)).toBeNull(); // nothing left to end
  });

  it("a pause of the gap ends an entry, at the pause's end however late it is asked; the next key starts a new one", () => {
    const pad = new KeypadBuffer();
    pad.press("4", T0);
    pad.press("2", T0 + 300);
    expect(pad.open).toBe(true);
    expect(pad.due(T0 + 300 + KEYPAD_GAP_MS - 1)).toBeNull();
    expect(pad.due(T0 + 300 + KEYPAD_GAP_MS + 180)).toEqual({
      digits: "42",
      startAt: T0,
      lastAt: T0 + 300,
      endAt: T0 + 300 + KEYPAD_GAP_MS,
    });
    pad.press("9", T0 + 5_000);
    expect(pad.due(T0 + 5_000 + KEYPAD_GAP_MS)).toMatchObject({ digits: "9", startAt: T0 + 5_000 });
  });

  it("the gap is the buffer's to set; the longest entry ends itself; keys that are no keys are ignored", () => {
    const quick = new KeypadBuffer(500);
    quick.press("7", T0);
    expect(quick.due(T0 + 500)).toMatchObject({ digits: "7", endAt: T0 + 500 });

    const pad = new KeypadBuffer();
    expect(pad.press("x", T0)).toBeNull();
    expect(pad.press("", T0)).toBeNull();
    expect(pad.press("12", T0)).toBeNull();
    expect(pad.open).toBe(false);
    let entry = null;
    for (let i = 0; i < MAX_ENTRY_KEYS; i++) entry = pad.press(String(i % 10), T0 + i * 100);
    expect(entry?.digits).toHaveLength(MAX_ENTRY_KEYS);
    expect(pad.open).toBe(false);
    // Star and A-D are keys too.
    expect(pad.press("*", T0)).toBeNull();
    expect(pad.press("A", T0 + 1)).toBeNull();
    expect(pad.press("#", T0 + 2)?.digits).toBe("*A#");
  });

  it("an entry reads as `[keypad]` and its keys, spaced", () => {
    expect(keypadText("12#")).toBe("[keypad] 1 2 #");
    expect(keypadText("*")).toBe("[keypad] *");
  });
});

describe("send_dtmf's keys", () => {
  it("takes 0-9, * and # with w pauses", () => {
    for (const ok of ["1", "1234#", "*9", "ww2", "0w0w0", "#".repeat(MAX_DTMF_DIGITS)]) expect(dtmfProblem(ok), ok).toBeNull();
  });

  it("refuses what Twilio's <Play digits> cannot play, saying why", () => {
    expect(dtmfProblem(undefined)).toMatch(/^digits is required/);
    expect(dtmfProblem("")).toMatch(/^digits is required/);
    expect(dtmfProblem(1)).toMatch(/^digits is required/);
    expect(dtmfProblem("one")).toBe('digits may hold only 0-9, *, # and w (half a second of pause); got "one"');
    expect(dtmfProblem("1 2")).toMatch(/only 0-9/);
    expect(dtmfProblem("W1")).toMatch(/only 0-9/); // Twilio's pause is a lower-case w
    expect(dtmfProblem('1"/><Hangup/>')).toMatch(/only 0-9/);
    expect(dtmfProblem("www")).toBe("digits must press at least one key, not only pauses");
    expect(dtmfProblem("1".repeat(MAX_DTMF_DIGITS + 1))).toBe(`digits may hold at most ${MAX_DTMF_DIGITS} keys and pauses; got 65`);
  });

  it("knows about how long they play: a w is half a second", () => {
    expect(dtmfPlayMs("ww")).toBe(1_000);
    expect(dtmfPlayMs("12")).toBeGreaterThan(0);
    expect(dtmfPlayMs("1w2")).toBe(dtmfPlayMs("12") + 500);
  });
});
