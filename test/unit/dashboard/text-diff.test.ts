// The versions' diff page's text diff (src/dashboard/agents/text-diff.ts): the parts put back
// together are each text again, unchanged text is kept, one-line values differ by words, longer
// ones by lines, objects as indented JSON.
import { describe, expect, it } from "vitest";
import { type DiffPart, diffTokens, diffValues } from "../../../src/dashboard/agents/text-diff";

const side = (parts: DiffPart[], op: "del" | "ins", joiner: string) =>
  parts
    .filter((p) => p.op === "same" || p.op === op)
    .map((p) => p.text)
    .join(joiner);

describe("the versions' text diff", () => {
  it("keeps the longest common run of lines and marks the rest removed or added", () => {
    const a = ["You are Ana.", "Be brief.", "Book visits.", "Never diagnose."];
    const b = ["You are Ana.", "Be warm.", "Book visits.", "Never diagnose.", "Say goodbye."];
    const parts = diffTokens(a, b);
    expect(parts).toEqual([
      { op: "same", text: "You are Ana." },
      { op: "del", text: "Be brief." },
      { op: "ins", text: "Be warm." },
      { op: "same", text: "Book visits.\nNever diagnose." },
      { op: "ins", text: "Say goodbye." },
    ]);
    expect(side(parts, "del", "\n").split("\n")).toEqual(a);
    expect(side(parts, "ins", "\n").split("\n")).toEqual(b);
  });

  it("compares one-line values by words, with the spaces kept, and multi-line ones by lines", () => {
    const words = diffValues(
      "You take bookings for a restaurant.",
      'You take bookings for a restaurant. When the user says "refund", reply "No."',
    );
    expect(words.kind).toBe("words");
    expect(words.parts[0]).toEqual({ op: "same", text: "You take bookings for a restaurant." });
    expect(words.parts.filter((p) => p.op === "del")).toEqual([]);
    expect(side(words.parts, "ins", "")).toBe('You take bookings for a restaurant. When the user says "refund", reply "No."');

    const json = diffValues({ summaryEnabled: true, successCriteria: ["a"] }, { summaryEnabled: false, successCriteria: ["a"] });
    expect(json.kind).toBe("lines");
    expect(json.parts.filter((p) => p.op !== "same")).toEqual([
      { op: "del", text: '  "summaryEnabled": true,' },
      { op: "ins", text: '  "summaryEnabled": false,' },
    ]);
    expect(diffValues(null, 0.3)).toEqual({ kind: "words", parts: [{ op: "ins", text: "0.3" }] });
  });

  it("shows texts too large to compare removed whole, then added whole", () => {
    const a = Array.from({ length: 1_200 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 1_200 }, (_, i) => `b${i}`);
    expect(diffTokens(a, b).map((p) => p.op)).toEqual(["del", "ins"]);
  });
});
