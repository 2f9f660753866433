// The parts of tools that need no server: a parameters schema judged against the draft-07
// meta-schema and our rules, arguments checked against a saved schema, the tools the model is
// offered on a chat and a call, and the history a chat's tool turns become for the model.
import { describe, expect, it } from "vitest";
import type { AgentTool, WidgetTurn } from "../../../src/db/schema";
import { argumentsValidator, PARAMETERS_MAX_BYTES, PARAMETERS_MAX_DEPTH, parametersProblems } from "../../../src/tools/json-schema";
import { modelTools, offeredTools } from "../../../src/tools/runtime";
import { toolsSchema } from "../../../src/tools/schema";
import { chatMessages } from "../../../src/widgets/reply";

describe("parametersProblems", () => {
  it("accepts object schemas of every draft-07 shape a model is given", () => {
    for (const schema of [
      { type: "object" },
      { type: "object", properties: {} },
      {
        type: "object",
        properties: {
          date: { type: "string", format: "date", description: "YYYY-MM-DD" },
          party: { type: "integer", minimum: 1, maximum: 12 },
          kind: { enum: ["table", "bar"] },
          notes: { type: ["string", "null"] },
          tags: { type: "array", items: { type: "string" }, uniqueItems: true },
          where: { $ref: "#/definitions/place" },
        },
        required: ["date", "party"],
        additionalProperties: false,
        definitions: { place: { type: "object", properties: { city: { type: "string", pattern: "^[A-Z]" } } } },
      },
    ]) {
      expect(parametersProblems(schema)).toEqual([]);
    }
  });

  it.each([
    [{ type: "object", properties: { a: { type: "strin" } } }, "at /properties/a/type"],
    [{ type: "object", properties: { a: { minLength: -1 } } }, "at /properties/a/minLength"],
    [{ type: "object", properties: { a: { pattern: "(" } } }, 'format "regex"'],
    [{ type: "object", required: [1] }, "at /required/0"],
    [{ type: "object", enum: [] }, "at /enum"],
    [{ type: "string" }, "schema of an object"],
    [{ properties: { a: {} } }, "schema of an object"],
    [{ type: "object", properties: { a: { $ref: "other.json#/x" } } }, "remote schemas are not fetched"],
    [{ type: "object", properties: { a: { $ref: "#foo" } } }, "JSON pointer"],
    [{ type: "object", properties: { a: { $ref: "#/properties/b" } } }, "points at nothing"],
  ])("refuses %j", (schema, message) => {
    const problems = parametersProblems(schema);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toContain(message);
  });

  it("caps size and depth", () => {
    const big = { type: "object", description: "x".repeat(PARAMETERS_MAX_BYTES) };
    expect(parametersProblems(big)[0]).toContain(`at most ${PARAMETERS_MAX_BYTES} bytes`);
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < PARAMETERS_MAX_DEPTH; i++) deep = { type: "object", properties: { a: deep } };
    expect(parametersProblems(deep)[0]).toContain(`at most ${PARAMETERS_MAX_DEPTH} levels`);
  });
});

describe("argumentsValidator", () => {
  const check = argumentsValidator({
    type: "object",
    properties: { id: { type: "string", pattern: "^[0-9]+$" }, n: { type: "integer", minimum: 1 } },
    required: ["id"],
    additionalProperties: false,
  });

  it("passes matching arguments and names every problem of others", () => {
    expect(check({ id: "42", n: 2 })).toEqual([]);
    expect(check({ n: 0 })).toEqual(
      expect.arrayContaining([expect.stringContaining('required property "id"'), expect.stringContaining("/n")]),
    );
    expect(check({ id: "x" })[0]).toContain("/id");
    expect(check({ id: "1", extra: true }).join()).toContain("extra");
    expect(check("42")[0]).toContain('Expected "object"');
  });
});

describe("toolsSchema", () => {
  it("fills the defaults and accepts the built-ins", () => {
    const parsed = toolsSchema.parse([
      { type: "function", name: "a", description: "A.", url: "https://x.example.com/a" },
      { type: "end_call" },
      {
        type: "transfer_call",
        destinations: [
          { number: "+14155550100", name: "desk" },
          { number: "+14155550101", name: "billing" },
        ],
      },
    ]);
    expect(parsed[0]).toEqual({
      type: "function",
      name: "a",
      description: "A.",
      url: "https://x.example.com/a",
      parameters: { type: "object", properties: {} },
      timeoutSeconds: 10,
      messages: {},
    });
  });
});

describe("the tools a model is offered", () => {
  const tools: AgentTool[] = [
    {
      type: "function",
      name: "lookup",
      description: "Looks up.",
      parameters: { type: "object" },
      url: "https://x.example.com",
      timeoutSeconds: 5,
      messages: {},
    },
    { type: "end_call", messages: {} },
    { type: "transfer_call", destinations: [{ number: "+14155550100" }] },
  ];

  it("are the functions and end_call on a chat, never transfer_call", () => {
    const offered = offeredTools(tools, { kind: "chat", id: "c", channel: "widget" });
    expect([...offered.keys()]).toEqual(["lookup", "end_call"]);
    expect(modelTools(offered)).toEqual([
      { type: "function", function: { name: "lookup", description: "Looks up.", parameters: { type: "object" } } },
      {
        type: "function",
        function: {
          name: "end_call",
          description: expect.stringContaining("End the conversation"),
          parameters: { type: "object", properties: {} },
        },
      },
    ]);
  });
});

describe("a chat's history with tool turns", () => {
  it("becomes the model's tool calls and their results, in order", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const tool = (callId: string, name: string, result: string): WidgetTurn => ({
      role: "tool",
      text: `${name}: ok (5 ms)`,
      at,
      tool: { callId, requestId: "r", name, arguments: { id: "1" }, outcome: "ok", statusCode: 200, latencyMs: 5, result },
    });
    const messages = chatMessages({ systemPrompt: "" }, [
      { role: "user", text: "lookup and stock", at },
      { role: "agent", text: "One moment.", at },
      tool("call_a", "lookup", '{"s":1}'),
      tool("call_b", "stock", '{"n":2}'),
      { role: "agent", text: "Done.", at },
    ]);
    expect(messages.slice(1)).toEqual([
      { role: "user", content: "lookup and stock" },
      { role: "assistant", content: "One moment." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "lookup", arguments: '{"id":"1"}' } },
          { id: "call_b", type: "function", function: { name: "stock", arguments: '{"id":"1"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"s":1}' },
      { role: "tool", tool_call_id: "call_b", content: '{"n":2}' },
      { role: "assistant", content: "Done." },
    ]);
  });
});
