// The end-call phrase rule (src/calls/pipeline/farewell.ts, docs/agents.md `endCallPhrases`).
import { describe, expect, it } from "vitest";
import { saysFarewell } from "../../../../src/calls/pipeline/farewell";

const GOODBYE = ["goodbye"];

describe("saysFarewell", () => {
  it.each([
    "Goodbye! Have a great day.",
    "Thanks for calling. Goodbye!",
    "Thank you and goodbye.",
    "Okay, goodbye, take care.",
    "Thanks for calling Acme, goodbye and have a great day!",
    "GOODBYE.",
    "Goodbye! You said: No thanks, goodbye.",
    "You're all set — goodbye!",
    "Have a good one - goodbye",
  ])("ends the call on %j", (said) => {
    expect(saysFarewell(said, GOODBYE)).toBe(true);
  });

  it.each([
    "Before we say goodbye, let me confirm your appointment for Tuesday.",
    "Before we say goodbye, is there anything else?",
    "Goodbye? Are you still there?",
    "Okay, goodbye. Oh wait, did you want a reminder?",
    "I'll pass your goodbyes on to the team.",
    "Saying goodbye is hard, but let's book that appointment.",
    "",
  ])("does not end the call on %j", (said) => {
    expect(saysFarewell(said, GOODBYE)).toBe(false);
  });

  it("takes several phrases, any case and spacing, and ignores an empty one", () => {
    expect(saysFarewell("Your order is on its way. Have a  nice day!", ["bye for now", "Have a nice day"])).toBe(true);
    expect(saysFarewell("Bye for now, Ada.", ["bye for now"])).toBe(true);
    expect(saysFarewell("Have a nice day", ["", "  "])).toBe(false);
    expect(saysFarewell("Goodbye.", [])).toBe(false);
  });

  it("treats a phrase's special characters literally", () => {
    expect(saysFarewell("Thanks (really). Bye!", ["bye!"])).toBe(true);
    expect(saysFarewell("Thanks. Byes", ["bye."])).toBe(false);
  });
});
