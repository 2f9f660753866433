// Reading the judge's answer (src/agent-tests/judge.ts): each criterion in the test's order with
// its reason; anything else (not JSON, another shape, a criterion left out) is JudgeUnreadable
// with what was wrong, never a guessed verdict.
import { describe, expect, it } from "vitest";
import { JudgeUnreadable, judgeMessages, judgeSchema, readJudgement, transcriptText } from "../../../src/agent-tests/judge";

const criteria = {
  successCriteria: ["Greets the caller", "Books the visit"],
  extractionFields: [{ name: "day", type: "enum" as const, description: "The day booked.", choices: ["mon", "tue"] }],
};
const verdict = (list: unknown[], extractedData: unknown = { day: "tue" }) => JSON.stringify({ criteriaResults: list, extractedData });

describe("readJudgement", () => {
  it("reads each criterion in the test's order, matched by its text, and the fields", () => {
    const text = verdict([
      { criterion: "books the visit ", passed: false, reason: "No booking was made." },
      { criterion: "Greets the caller", passed: true, reason: "It said hello." },
    ]);
    expect(readJudgement(text, criteria)).toEqual({
      criteria: [
        { criterion: "Greets the caller", passed: true, reason: "It said hello." },
        { criterion: "Books the visit", passed: false, reason: "No booking was made." },
      ],
      extractedData: { day: "tue" },
    });
  });

  it("takes a fenced answer, a reworded criterion by its place, and a missing field as null", () => {
    const text = `\`\`\`json\n${verdict(
      [
        { criterion: "Greeting", passed: true, reason: "a" },
        { criterion: "Booking", passed: true, reason: "b" },
      ],
      {},
    )}\n\`\`\``;
    expect(readJudgement(text, criteria)).toMatchObject({ criteria: [{ passed: true }, { passed: true }], extractedData: { day: null } });
  });

  it.each([
    ["prose", "The caller was happy.", /it was not JSON \("The caller was happy\."\)/],
    ["an empty answer", "", /it was not JSON/],
    ["another shape", JSON.stringify({ verdict: "pass" }), /criteriaResults: /],
    [
      "a criterion not judged",
      verdict([{ criterion: "Greets the caller", passed: true, reason: "ok" }]),
      /did not judge the criterion "Books the visit"/,
    ],
    [
      "a verdict that is not a boolean",
      verdict([{ criterion: "Greets the caller", passed: "yes", reason: "ok" }]),
      /criteriaResults\.0\.passed/,
    ],
  ])("refuses %s, saying what was wrong", (_, text, reason) => {
    const read = () => readJudgement(text, criteria);
    expect(read).toThrow(JudgeUnreadable);
    expect(read).toThrow(/^the judge's answer could not be read: /);
    expect(read).toThrow(reason);
  });
});

describe("the judge's request", () => {
  it("shows the transcript with speakers and tool outcomes, and asks for every field in a strict schema", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const text = transcriptText([
      { role: "user", text: "Hi", at },
      {
        role: "tool",
        text: "lookup: ok",
        at,
        tool: { callId: "c", requestId: null, name: "lookup", arguments: {}, outcome: "ok", statusCode: 200, latencyMs: 5, result: "{}" },
      },
      { role: "agent", text: "Hello", at },
    ]);
    expect(text).toBe("Caller: Hi\nTool: lookup (ok)\nAgent: Hello");
    expect(judgeMessages(criteria, [])[0]?.content).toContain('Success criteria (JSON): ["Greets the caller","Books the visit"]');
    expect(judgeSchema(criteria)).toMatchObject({
      properties: { extractedData: { required: ["day"], properties: { day: { enum: ["mon", "tue", null] } } } },
    });
  });
});
