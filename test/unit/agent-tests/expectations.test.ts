// Tool expectations (src/agent-tests/expectations.ts): checked from the run's tool turns.
import { describe, expect, it } from "vitest";
import { checkExpectations } from "../../../src/agent-tests/expectations";

const calls = [
  { name: "lookup_order", arguments: { orderId: "Order 42", options: { fast: true, n: 1 } } },
  { name: "lookup_order", arguments: { orderId: "7" } },
];

describe("tool expectations", () => {
  it("pass when one call has every named argument (equal as JSON, or containing a string)", () => {
    expect(
      checkExpectations(
        [
          { tool: "lookup_order", arguments: { orderId: "7" } },
          { tool: "lookup_order", arguments: { orderId: { contains: "order 4" }, options: { n: 1, fast: true } } },
          { tool: "lookup_order" },
          { tool: "end_call", called: false },
        ],
        calls,
      ).map((r) => r.passed),
    ).toEqual([true, true, true, true]);
  });

  it("fail with the reason: never called, called when it must not be, other arguments", () => {
    expect(
      checkExpectations(
        [
          { tool: "check_stock" },
          { tool: "lookup_order", called: false },
          { tool: "lookup_order", arguments: { orderId: { contains: "99" } } },
        ],
        calls,
      ),
    ).toEqual([
      { tool: "check_stock", passed: false, reason: "check_stock was never called." },
      { tool: "lookup_order", passed: false, reason: "lookup_order was called 2 time(s); it must not be." },
      {
        tool: "lookup_order",
        passed: false,
        reason: 'lookup_order was called, but not with the expected arguments: orderId was "7", expected {"contains":"99"}.',
      },
    ]);
  });

  it("say a tool the version does not offer is gone, instead of never called", () => {
    const offered = new Set(["lookup_order", "end_call"]);
    expect(
      checkExpectations([{ tool: "check_stock" }, { tool: "check_stock", called: false }, { tool: "end_call" }], calls, offered),
    ).toEqual([
      {
        tool: "check_stock",
        passed: false,
        reason:
          "The agent has no tool named check_stock at this version (deleted or renamed): it could not be called. Update the test's tool expectations.",
      },
      { tool: "check_stock", passed: true, reason: "check_stock was not called: the agent has no tool of that name at this version." },
      { tool: "end_call", passed: false, reason: "end_call was never called." },
    ]);
  });
});
