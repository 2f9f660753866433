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
});
