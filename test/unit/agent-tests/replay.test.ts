import { describe, expect, it } from "vitest";
import { recordedTurns, replyWords, turnDiffers } from "../../../src/agent-tests/replay";

describe("recordedTurns", () => {
  it("pairs each caller turn with the agent's words up to the next one, leaving out tool turns and the greeting", () => {
    expect(
      recordedTurns([
        { role: "agent", text: "Hello." },
        { role: "user", text: "Order 7?" },
        { role: "tool", text: "lookup_order" },
        { role: "agent", text: "It shipped" },
        { role: "agent", text: "yesterday." },
        { role: "user", text: "Thanks" },
        { role: "user", text: "Bye" },
        { role: "agent", text: "Goodbye!" },
      ]),
    ).toEqual([
      { caller: "Order 7?", recorded: "It shipped yesterday." },
      { caller: "Thanks", recorded: "" },
      { caller: "Bye", recorded: "Goodbye!" },
    ]);
  });
});

describe("turnDiffers", () => {
  it("ignores white space and case only", () => {
    expect(turnDiffers("You said:  Hi.", " you SAID: hi. ")).toBe(false);
    expect(turnDiffers("You said: Hi.", "You said: Hi")).toBe(true);
    expect(turnDiffers("Hi", null)).toBe(true);
  });
});

describe("replyWords", () => {
  it("reads a replayed reply as a recorded one is read: the tool's message said first, then the answer", () => {
    const recorded = recordedTurns([
      { role: "user", text: "Where is order 7?" },
      { role: "agent", text: "One moment." },
      { role: "tool", text: "lookup_order" },
      { role: "agent", text: "It ships today." },
    ]);
    const replayed = replyWords({
      text: "It ships today.",
      turns: [
        { role: "agent", text: "One moment." },
        { role: "tool", text: "lookup_order" },
      ],
    });
    expect(replayed).toBe("One moment. It ships today.");
    expect(turnDiffers(recorded[0]?.recorded ?? "", replayed)).toBe(false);
    expect(turnDiffers(recorded[0]?.recorded ?? "", "It ships today.")).toBe(true);
  });
});
