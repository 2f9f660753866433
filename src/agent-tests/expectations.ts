// Tool expectations (docs/agent-tests.md, "Tool expectations"): checked from the run's tool turns,
// without a model. A tool expected called passes when one of its calls has every argument named
// (equal as JSON, or containing a `{contains}` string, case-insensitive); one expected not called
// passes when no call names it.
import type { Agent, ChatTurn, ToolExpectation } from "../db/schema";
import { offeredTools } from "../tools/offer";

export interface ExpectationResult {
  tool: string;
  passed: boolean;
  reason: string;
}

type Call = { name: string; arguments: unknown };

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x,
  );

function matches(expected: unknown, actual: unknown): boolean {
  if (expected && typeof expected === "object" && !Array.isArray(expected)) {
    const keys = Object.keys(expected);
    const contains = (expected as { contains?: unknown }).contains;
    if (keys.length === 1 && typeof contains === "string")
      return typeof actual === "string" && actual.toLowerCase().includes(contains.toLowerCase());
  }
  return canonical(expected) === canonical(actual);
}

/** Where a call's arguments differ from the expectation's, in words; null when they match. */
function mismatch(expected: Record<string, unknown>, args: unknown): string | null {
  const given = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  for (const [name, want] of Object.entries(expected)) {
    if (!matches(want, given[name])) return `${name} was ${JSON.stringify(given[name] ?? null)}, expected ${JSON.stringify(want)}`;
  }
  return null;
}

export const toolCallsOf = (transcript: readonly ChatTurn[]): Call[] =>
  transcript.flatMap((t) => (t.role === "tool" && t.tool ? [{ name: t.tool.name, arguments: t.tool.arguments }] : []));

/**
 * Each expectation checked against the calls made. With `offered` (the tools the version played
 * offers: expectationTools), a tool it does not have (deleted or renamed since the test was written)
 * fails with that reason instead of "never called", and passes when expected not called.
 */
export function checkExpectations(
  expectations: readonly ToolExpectation[],
  calls: readonly Call[],
  offered?: ReadonlySet<string>,
): ExpectationResult[] {
  return expectations.map((e) => {
    const of = calls.filter((c) => c.name === e.tool);
    if (offered && !offered.has(e.tool) && of.length === 0)
      return e.called === false
        ? { tool: e.tool, passed: true, reason: `${e.tool} was not called: the agent has no tool of that name at this version.` }
        : {
            tool: e.tool,
            passed: false,
            reason: `The agent has no tool named ${e.tool} at this version (deleted or renamed): it could not be called. Update the test's tool expectations.`,
          };
    if (e.called === false)
      return of.length === 0
        ? { tool: e.tool, passed: true, reason: `${e.tool} was not called.` }
        : { tool: e.tool, passed: false, reason: `${e.tool} was called ${of.length} time(s); it must not be.` };
    if (of.length === 0) return { tool: e.tool, passed: false, reason: `${e.tool} was never called.` };
    if (!e.arguments) return { tool: e.tool, passed: true, reason: `${e.tool} was called ${of.length} time(s).` };
    const problems = of.map((c) => mismatch(e.arguments as Record<string, unknown>, c.arguments));
    if (problems.some((p) => p === null))
      return { tool: e.tool, passed: true, reason: `${e.tool} was called with the expected arguments.` };
    return {
      tool: e.tool,
      passed: false,
      reason: `${e.tool} was called, but not with the expected arguments: ${problems[problems.length - 1]}.`,
    };
  });
}

/**
 * The tools a run offers the agent, by the name an expectation gives them: its function tools,
 * end_call, search_knowledge when it searches its knowledge by a tool (a chat's offer: run.ts
 * `agentReply`; transfer_call and send_dtmf need a phone line). The dashboard's expectation picker.
 */
export const expectationTools = (agent: Pick<Agent, "tools" | "knowledge">): string[] => [
  ...offeredTools(agent.tools, { kind: "chat", id: "", channel: "test" }, agent.knowledge).keys(),
];
