// The sandbox's simulated caller and judge (dev/sandbox/agent-tests.ts, docs/sandbox.md "Agent
// tests"), driven by the prompts the platform really sends (src/agent-tests/caller.ts, judge.ts),
// so the two cannot drift apart: the caller says its goal a sentence at a time then [END]; the
// judge passes a criterion when the transcript has the phrases it quotes, else its longest word.
import { describe, expect, it } from "vitest";
import { keywordsOf } from "../../../dev/sandbox/agent-tests";
import { complete, parseChatRequest } from "../../../dev/sandbox/chat";
import { callerMessages, readCallerAnswer } from "../../../src/agent-tests/caller";
import { judgeMessages, judgeResponseFormat, readJudgement } from "../../../src/agent-tests/judge";
import type { ChatTurn } from "../../../src/db/schema";

const answer = (body: Record<string, unknown>) =>
  complete(parseChatRequest({ model: "gpt-4o-mini", ...body })).choices[0]?.message.content ?? "";
const at = "2026-01-01T00:00:00.000Z";

describe("the sandbox's simulated caller", () => {
  const scenario = { kind: "simulated" as const, persona: "Brisk.", goal: "I need a check-up. Tuesday works!  Thanks?", maxTurns: 10 };

  it("says the goal's sentences in order, one per message, then [END]", () => {
    const transcript: ChatTurn[] = [{ role: "agent", text: "Hello!", at }];
    const said: string[] = [];
    for (let i = 0; i < 5; i++) {
      const read = readCallerAnswer(answer({ messages: callerMessages(scenario, transcript) }));
      if (read.done) break;
      said.push(read.text);
      transcript.push({ role: "user", text: read.text, at }, { role: "agent", text: `You said: ${read.text}`, at });
    }
    expect(said).toEqual(["I need a check-up.", "Tuesday works!", "Thanks?"]);
  });
});

describe("the sandbox's judge", () => {
  const transcript: ChatTurn[] = [
    { role: "user", text: "Where is my order 7?", at },
    { role: "agent", text: "Your order shipped on Monday.", at },
  ];

  it("passes a criterion whose quoted phrases the transcript has, and says which one it lacks", () => {
    const criteria = {
      successCriteria: ['The agent mentions "order 7" and "shipped"', 'The agent says "refund"', "The agent was courteous throughout"],
      extractionFields: [{ name: "orderId", type: "string" as const, description: "The order's number." }],
    };
    const text = answer({ messages: judgeMessages(criteria, transcript), response_format: judgeResponseFormat(criteria) });
    expect(readJudgement(text, criteria)).toEqual({
      criteria: [
        { criterion: criteria.successCriteria[0], passed: true, reason: 'The transcript mentions "order 7", "shipped".' },
        { criterion: criteria.successCriteria[1], passed: false, reason: 'The transcript never mentions "refund".' },
        { criterion: criteria.successCriteria[2], passed: false, reason: 'The transcript never mentions "throughout".' },
      ],
      extractedData: { orderId: null },
    });
  });

  it("judges by the longest word when nothing is quoted", () => {
    expect(keywordsOf("The agent was courteous throughout")).toEqual(["throughout"]);
    expect(keywordsOf('Says “hello there” and "bye"')).toEqual(["hello there", "bye"]);
  });

  it("fault-prose answers prose whatever it is asked", () => {
    const criteria = { successCriteria: ["x"], extractionFields: [] };
    const text = complete(parseChatRequest({ model: "fault-prose", messages: judgeMessages(criteria, transcript) })).choices[0]?.message
      .content;
    expect(() => readJudgement(text ?? "", criteria)).toThrow(/^the judge's answer could not be read: it was not JSON/);
  });
});
