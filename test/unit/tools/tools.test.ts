// The parts of tools that need no server: a parameters schema judged against the draft-07
// meta-schema and our rules, arguments checked against a saved schema, the tools the model is
// offered on a chat and a call, and the history a chat's tool turns become for the model.
import { describe, expect, it } from "vitest";
import type { Db } from "../../../src/db/client";
import type { AgentTool, ChatTurn } from "../../../src/db/schema";
import type { AppConfig } from "../../../src/env";
import type { AgentAnswer } from "../../../src/metering/agent-reply";
import { argumentsValidator, PARAMETERS_MAX_BYTES, PARAMETERS_MAX_DEPTH, parametersProblems } from "../../../src/tools/json-schema";
import { modelTools, offeredTools, transferDestination } from "../../../src/tools/offer";
import { agentTurn, type Round } from "../../../src/tools/runtime";
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

  it("send_dtmf is offered on phone calls only, with its keys' schema", () => {
    const list: AgentTool[] = [{ type: "send_dtmf" }];
    expect([...offeredTools(list, { kind: "chat", id: "c", channel: "widget" }).keys()]).toEqual([]);
    expect([...offeredTools(list, { kind: "call", id: "c", transferable: false }).keys()]).toEqual([]);
    const [def] = modelTools(offeredTools(list, { kind: "call", id: "c", transferable: true }));
    expect(def?.function).toMatchObject({
      name: "send_dtmf",
      description: expect.stringContaining("Press keys on the phone's keypad"),
      parameters: { type: "object", properties: { digits: { type: "string", pattern: "^[0-9*#w]{1,64}$" } }, required: ["digits"] },
    });
  });

  it("are the same on a web call; a phone call adds transfer_call, choosing by name when there are several", () => {
    expect([...offeredTools(tools, { kind: "call", id: "c", transferable: false }).keys()]).toEqual(["lookup", "end_call"]);
    const phone = offeredTools(tools, { kind: "call", id: "c", transferable: true });
    expect([...phone.keys()]).toEqual(["lookup", "end_call", "transfer_call"]);
    // One destination: nothing to choose.
    expect(modelTools(phone)[2]).toEqual({
      type: "function",
      function: {
        name: "transfer_call",
        description: expect.stringContaining("Transfer the caller"),
        parameters: { type: "object", properties: {} },
      },
    });
    const several: AgentTool = {
      type: "transfer_call",
      destinations: [
        { number: "+14155550100", name: "billing", description: "Invoices." },
        { number: "+14155550111", name: "support" },
      ],
    };
    const [def] = modelTools(offeredTools([several], { kind: "call", id: "c", transferable: true }));
    expect(def?.function).toMatchObject({
      parameters: {
        type: "object",
        properties: { destination: { type: "string", enum: ["billing", "support"], description: "billing: Invoices.; support" } },
        required: ["destination"],
      },
    });
    if (several.type !== "transfer_call") throw new Error("unreachable");
    expect(transferDestination(several, { destination: "support" })?.number).toBe("+14155550111");
    expect(transferDestination(several, { destination: "sales" })).toBeNull();
    expect(transferDestination(several, {})).toBeNull();
    expect(transferDestination({ type: "transfer_call", destinations: [{ number: "+1415555" }] }, "anything")?.number).toBe("+1415555");
  });
});

describe("a live call's turn (streamed rounds)", () => {
  // No function tool, so no secret, database or network: the model is the scripted `round`.
  const deps = {
    db: {} as Db,
    config: {} as AppConfig,
    waitUntil: () => undefined,
    providers: {
      chat: () => {
        throw new Error("the scripted round answers");
      },
      embeddings: () => {
        throw new Error("these agents have no knowledge bases");
      },
    },
  };
  const payer = { organizationId: "o", apiKeyId: null, method: "CALL", endpoint: "/v1/calls/c", callId: "c" };
  const agent = (tools: AgentTool[]) => ({
    id: "a",
    name: "Agent",
    llmModel: "m",
    temperature: 0.7,
    tools,
    toolSecret: null,
    metadata: {},
  });
  const scripted = (answers: AgentAnswer[]) => {
    const asked: Array<{ offered: string[]; choice: unknown; last: unknown }> = [];
    const round: Round = async (messages, offer) => {
      asked.push({
        offered: (offer.tools ?? []).map((t) => (t as { function: { name: string } }).function.name),
        choice: offer.toolChoice,
        last: messages.at(-1),
      });
      const next = answers.shift();
      if (!next) throw new Error("asked once too often");
      return next;
    };
    return { round, asked };
  };
  const call = (name: string, args = "{}") => ({ id: `call_${name}`, type: "function", function: { name, arguments: args } });
  const subject = { kind: "call" as const, id: "c", transferable: true };

  it("send_dtmf: the keys are pressed after the reply and the agent listens (no second round); bad keys are refused to the model", async () => {
    const keys: AgentTool = { type: "send_dtmf" };
    const { round, asked } = scripted([{ content: "Choosing appointments.", toolCalls: [call("send_dtmf", '{"digits":"1"}')] }]);
    const turn = await agentTurn(
      deps,
      payer,
      agent([keys]),
      subject,
      [{ role: "user", content: "Press 1 for appointments." }],
      50,
      undefined,
      {
        round,
      },
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]?.offered).toEqual(["send_dtmf"]);
    expect(turn).toMatchObject({ text: "Choosing appointments.", ended: false, transfer: null, dtmf: "1", toolCalls: 1 });
    expect(turn.turns).toEqual([
      expect.objectContaining({
        role: "tool",
        tool: expect.objectContaining({ name: "send_dtmf", outcome: "ok", arguments: { digits: "1" } }),
      }),
    ]);

    const bad = scripted([
      { content: "", toolCalls: [call("send_dtmf", '{"digits":"one"}')] },
      { content: "I could not press that.", toolCalls: [] },
    ]);
    const refused = await agentTurn(deps, payer, agent([keys]), subject, [{ role: "user", content: "Press 1." }], 50, undefined, {
      round: bad.round,
    });
    expect(bad.asked).toHaveLength(2);
    expect(refused.dtmf).toBeUndefined();
    const detail = refused.turns.find((t) => t.role === "tool");
    expect(detail).toMatchObject({ tool: { name: "send_dtmf", outcome: "invalid_arguments" } });
    expect(JSON.parse((bad.asked[1]?.last as { content: string }).content)).toEqual({
      error: 'digits may hold only 0-9, *, # and w (half a second of pause); got "one"',
    });
  });

  it("transfer_call: says the destination's message itself and returns where to, recording the tool turn", async () => {
    const transfer: AgentTool = {
      type: "transfer_call",
      destinations: [
        { number: "+14155550100", name: "billing", message: "Putting you through to billing." },
        { number: "+14155550111", name: "support" },
      ],
    };
    const { round, asked } = scripted([{ content: "", toolCalls: [call("transfer_call", '{"destination":"billing"}')] }]);
    const said: string[] = [];
    const turn = await agentTurn(
      deps,
      payer,
      agent([transfer]),
      subject,
      [{ role: "user", content: "billing please" }],
      50,
      async (t) => {
        said.push(t);
      },
      { round },
    );
    expect(asked).toHaveLength(1); // no second round: the call is handed on
    expect(asked[0]?.offered).toEqual(["transfer_call"]);
    expect(said).toEqual(["Putting you through to billing."]);
    expect(turn).toMatchObject({ ended: false, transfer: { number: "+14155550100", name: "billing" }, toolCalls: 1 });
    expect(turn.turns).toEqual([
      expect.objectContaining({ role: "tool", tool: expect.objectContaining({ name: "transfer_call", outcome: "ok" }) }),
    ]);
  });

  it("transfer_call to a destination that does not exist is refused to the model, which goes on talking", async () => {
    const transfer: AgentTool = {
      type: "transfer_call",
      destinations: [
        { number: "+14155550100", name: "billing" },
        { number: "+14155550111", name: "support" },
      ],
    };
    const { round, asked } = scripted([
      { content: "", toolCalls: [call("transfer_call", '{"destination":"sales"}')] },
      { content: "I can transfer you to billing or support.", toolCalls: [] },
    ]);
    const said: string[] = [];
    const rounds: unknown[] = [];
    const turn = await agentTurn(
      deps,
      payer,
      agent([transfer]),
      subject,
      [{ role: "user", content: "sales" }],
      50,
      async (t) => {
        said.push(t);
      },
      { round, onToolRound: (messages) => rounds.push(messages) },
    );
    expect(turn).toMatchObject({ transfer: null, ended: false, text: expect.stringContaining("billing or support") });
    expect(turn.turns[0]).toMatchObject({ tool: { outcome: "invalid_arguments", error: "destination must be one of billing, support" } });
    // The failure is said before the model's next words (streamed: through `say`, not in the text's head).
    expect(said).toEqual(["Sorry, something went wrong on my side while checking that."]);
    // The round's messages for the call's history: the model's call (its words were said) and the result.
    expect(rounds).toEqual([
      [
        { role: "assistant", content: null, tool_calls: [call("transfer_call", '{"destination":"sales"}')] },
        { role: "tool", tool_call_id: "call_transfer_call", content: expect.stringContaining("destination must be one of") },
      ],
    ]);
    expect(asked[1]?.last).toMatchObject({ role: "tool" });
  });

  it("end_call with words of its own streamed: nothing more is said; without: the tool's message", async () => {
    const end: AgentTool = { type: "end_call", messages: { requestStart: "Bye now!" } };
    const withWords = scripted([{ content: "Glad I could help. Goodbye.", toolCalls: [call("end_call")] }]);
    const said: string[] = [];
    const say = async (t: string) => {
      said.push(t);
    };
    const a = await agentTurn(deps, payer, agent([end]), subject, [{ role: "user", content: "bye" }], 50, say, { round: withWords.round });
    expect(a).toMatchObject({ ended: true, transfer: null, text: "Glad I could help. Goodbye." });
    expect(said).toEqual([]);
    const silent = scripted([{ content: "", toolCalls: [call("end_call")] }]);
    const b = await agentTurn(deps, payer, agent([end]), subject, [{ role: "user", content: "bye" }], 50, say, { round: silent.round });
    expect(b).toMatchObject({ ended: true, text: "Bye now!" });
    expect(said).toEqual(["Bye now!"]);
  });
});

describe("a chat's history with tool turns", () => {
  it("becomes the model's tool calls and their results, in order", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const tool = (callId: string, name: string, result: string): ChatTurn => ({
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
