// The chats search's excerpt (src/chats/excerpt.ts): the term where the message has it, in the
// message's case, a few characters either side, cut between graphemes, never inside one.
import { describe, expect, it } from "vitest";
import { excerptOf } from "../../../src/chats/excerpt";

describe("excerptOf", () => {
  it("finds the term in any case and keeps the message's own", () => {
    expect(excerptOf("Do you open on SATURDAYS?", "saturday")).toEqual({ before: "Do you open on ", match: "SATURDAY", after: "S?" });
  });

  it("takes the term literally: LIKE's and regular expressions' special characters are text", () => {
    expect(excerptOf("A discount of 50% (or 5_0) on a.b", "50%")).toEqual({
      before: "A discount of ",
      match: "50%",
      after: " (or 5_0) on a.b",
    });
    expect(excerptOf("A discount of 50% (or 5_0) on a.b", "5_0")).toMatchObject({ match: "5_0" });
    expect(excerptOf("path C:\\temp\\x (a+b)*", "\\temp\\")).toMatchObject({ match: "\\temp\\" });
    expect(excerptOf("path C:\\temp\\x (a+b)*", "(a+b)*")).toMatchObject({ match: "(a+b)*" });
    expect(excerptOf("a.b", ".")).toMatchObject({ before: "a", match: ".", after: "b" });
  });

  it("folds case beyond ASCII and compares in NFC", () => {
    expect(excerptOf("Grüße aus MÜNCHEN", "münchen")).toMatchObject({ match: "MÜNCHEN" });
    expect(excerptOf("ΟΔΥΣΣΕΑΣ", "οδυσσεας")).toMatchObject({ match: "ΟΔΥΣΣΕΑΣ" });
    // "é" written as e + a combining accent (NFD) is found by the precomposed one, and the other way round.
    expect(excerptOf("Un cafe\u0301 noir", "café")).toMatchObject({ before: "Un ", match: "café", after: " noir" });
    expect(excerptOf("Un café noir", "cafe\u0301")).toMatchObject({ match: "café" });
    expect(excerptOf("予約を火曜日に変更したい", "火曜日")).toEqual({ before: "予約を", match: "火曜日", after: "に変更したい" });
  });

  it("keeps a few characters either side, cut between graphemes with an ellipsis", () => {
    const family = "👨‍👩‍👧";
    const thumb = "👍🏽";
    expect(excerptOf(`${family.repeat(5)}term${thumb.repeat(5)}`, "TERM", 3)).toEqual({
      before: `…${family.repeat(3)}`,
      match: "term",
      after: `${thumb.repeat(3)}…`,
    });
    // Words either side: the spaces at a cut go, the ones beside the match stay.
    expect(excerptOf("one two three four five six seven", "four", 7)).toEqual({ before: "…three ", match: "four", after: " five…" });
  });

  it("shows the message's start, unmarked, when it does not find the term", () => {
    expect(excerptOf("Hello there, general Kenobi", "zzz", 5)).toEqual({ before: "", match: "", after: "Hello…" });
    expect(excerptOf("Short", "")).toEqual({ before: "", match: "", after: "Short" });
  });
});
