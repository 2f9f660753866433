// A test's form (src/dashboard/agent-tests/form.ts): the fields → the API's body, validated by the
// API's own schema (createTestSchema), its issues back on the fields (a tool expectation's on its
// row, whatever blank rows come before), a saved test → the fields and back unchanged; the
// replays' "N of M turns differ" (format.ts) and the tools an expectation may name (expectations.ts).
import { describe, expect, it } from "vitest";
import { expectationTools } from "../../../src/agent-tests/expectations";
import { createTestSchema } from "../../../src/agent-tests/schema";
import { onTestFields, testBodyOf, valuesOfTest } from "../../../src/dashboard/agent-tests/form";
import { differText } from "../../../src/dashboard/agent-tests/format";
import { validate } from "../../../src/dashboard/forms";
import type { AgentTest } from "../../../src/db/schema";

const form = (fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, [v]]));

const rows = (list: Array<[string, string, string]>) =>
  Object.fromEntries(
    list.flatMap(([tool, called, args], i) => [
      [`expectTool.${i}`, tool],
      [`expectCalled.${i}`, called],
      [`expectArguments.${i}`, args],
    ]),
  );

describe("a test's form", () => {
  it("turns every field into the API's body, leaving blank expectation rows out", () => {
    const {
      body,
      pre,
      rows: map,
    } = testBodyOf(
      form({
        name: "Refund",
        kind: "simulated",
        turns: "ignored",
        persona: "A customer in a hurry.",
        goal: "Ask for a refund.",
        firstMessage: "Hi, I need my money back",
        maxTurns: "4",
        criteria: 'The agent says "refund"\n\n  It stays polite  ',
        extractionFields: '[{"name":"order_id","type":"string","description":"The order"}]',
        judgeModel: " sandbox-chat ",
        ...rows([
          ["", "yes", ""],
          ["lookup_order", "yes", '{"orderId": {"contains": "7"}}'],
          ["end_call", "no", ""],
        ]),
      }),
    );
    expect(pre).toEqual({});
    expect(map).toEqual([1, 2]);
    const checked = validate(createTestSchema, body, pre);
    expect(checked.ok && checked.data).toEqual({
      name: "Refund",
      scenario: {
        kind: "simulated",
        persona: "A customer in a hurry.",
        goal: "Ask for a refund.",
        firstMessage: "Hi, I need my money back",
        maxTurns: 4,
      },
      criteria: {
        successCriteria: ['The agent says "refund"', "It stays polite"],
        extractionFields: [{ name: "order_id", type: "string", description: "The order" }],
      },
      toolExpectations: [
        { tool: "lookup_order", called: true, arguments: { orderId: { contains: "7" } } },
        { tool: "end_call", called: false },
      ],
      judgeModel: "sandbox-chat",
    });
  });

  it("puts each problem on its field: JSON that does not parse, arguments without a tool, the schema's issues by row", () => {
    const {
      body,
      pre,
      rows: map,
    } = testBodyOf(
      form({
        name: "",
        kind: "script",
        turns: "",
        criteria: "",
        extractionFields: '[{"name":"1bad","type":"string","description":"x"}]',
        ...rows([
          ["", "yes", ""],
          ["", "yes", '{"a": 1}'],
          ["lookup_order", "yes", "{not json"],
          ["lookup_order", "yes", "[1, 2]"],
        ]),
      }),
    );
    expect(pre).toEqual({ "expectTool.1": "Choose the tool these arguments are for.", "expectArguments.2": "must be valid JSON" });
    const checked = validate(createTestSchema, body, pre);
    expect(checked.ok).toBe(false);
    const errors = onTestFields(checked.ok ? {} : checked.errors, map);
    expect(Object.keys(errors).sort()).toEqual(
      ["expectArguments.2", "expectArguments.3", "expectTool.1", "extractionFields", "name", "turns"].sort(),
    );
    expect(errors.extractionFields).toMatch(/^0\.name: must be an identifier/);
  });

  it("draws a saved test's fields so that sending them back saves the same test", () => {
    const test = {
      name: "Order",
      scenario: { kind: "script", turns: ["Hi", "Where is order 7?"] },
      criteria: {
        successCriteria: ['The agent says "order 7"'],
        extractionFields: [{ name: "n", type: "number", description: "A number" }],
      },
      toolExpectations: [
        { tool: "lookup_order", called: true, arguments: { orderId: "7" } },
        { tool: "end_call", called: false },
      ],
      judgeModel: null,
    } as unknown as AgentTest;
    const v = valuesOfTest(test);
    const fields: Record<string, string> = {
      name: v.name,
      kind: v.kind,
      turns: v.turns,
      persona: v.persona,
      goal: v.goal,
      firstMessage: v.firstMessage,
      maxTurns: v.maxTurns,
      criteria: v.criteria,
      extractionFields: v.extractionFields,
      judgeModel: v.judgeModel,
      ...rows(v.expectations.map((e) => [e.tool, e.called, e.arguments])),
    };
    const checked = validate(createTestSchema, testBodyOf(form(fields)).body);
    expect(checked.ok && checked.data).toEqual({ ...test, scenario: { kind: "script", turns: ["Hi", "Where is order 7?"] } });
  });
});

describe("replays and expectations on the Tests page", () => {
  it("says how many of a replay's turns differ, and nothing before it has played", () => {
    expect(differText(null)).toBeNull();
    expect(differText([{ differs: false }, { differs: true }, { differs: true }])).toBe("2 of 3 turns differ");
    expect(differText([{ differs: true }, { differs: false }])).toBe("1 of 2 turns differs");
    expect(differText([{ differs: false }])).toBe("0 of 1 turn differ");
  });

  it("offers the tools a test run offers: function tools and end_call, search_knowledge by tool; no phone-line tools", () => {
    const tools = [
      { type: "function", name: "lookup_order", description: "d", url: "https://x.example/t", parameters: {} },
      { type: "end_call" },
      { type: "transfer_call", destinations: [{ number: "+14155550100" }] },
      { type: "send_dtmf" },
    ] as never;
    const knowledge = {
      knowledgeBaseIds: ["0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77"],
      topK: 3,
      maxDistance: null,
      retrieval: "tool",
    } as never;
    expect(expectationTools({ tools, knowledge })).toEqual(["lookup_order", "end_call", "search_knowledge"]);
    expect(expectationTools({ tools, knowledge: { ...(knowledge as object), retrieval: "every_turn" } as never })).toEqual([
      "lookup_order",
      "end_call",
    ]);
  });
});
