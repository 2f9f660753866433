// How long to wait after too many failed sign-ins, in words (src/middleware/sign-in-limit.ts).
import { describe, expect, it } from "vitest";
import { inWords } from "../../../src/middleware/sign-in-limit";

describe("inWords", () => {
  it("rounds up to whole seconds under a minute, whole minutes under an hour, else hours", () => {
    expect(inWords(0.2)).toBe("1 second");
    expect(inWords(1)).toBe("1 second");
    expect(inWords(45)).toBe("45 seconds");
    expect(inWords(60)).toBe("1 minute");
    expect(inWords(61)).toBe("2 minutes");
    expect(inWords(691)).toBe("12 minutes");
    expect(inWords(900)).toBe("15 minutes");
    expect(inWords(3600)).toBe("1 hour");
    expect(inWords(5400)).toBe("2 hours");
  });
});
