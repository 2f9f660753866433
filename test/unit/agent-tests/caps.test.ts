// The caps of a run (src/agent-tests/run.ts, caller.ts): the time cap cuts work that goes on too
// long with a reason (and lets work that ends in time through), and the simulated caller's [END]
// is read alone or closing its last message.
import { describe, expect, it } from "vitest";
import { readCallerAnswer } from "../../../src/agent-tests/caller";
import { beforeDeadline, CapReached, failureReason } from "../../../src/agent-tests/run";

describe("the time cap", () => {
  it("refuses work still going at the deadline, with the reason", async () => {
    const never = new Promise<string>(() => {});
    const cut = beforeDeadline(never, Date.now() + 20, 60_000).catch((e: unknown) => e);
    const err = await cut;
    expect(err).toBeInstanceOf(CapReached);
    expect(failureReason(err)).toBe("The conversation did not finish within 60 s (the time cap).");
  });

  it("lets work that ends in time through, and its failure as it is", async () => {
    await expect(beforeDeadline(Promise.resolve("done"), Date.now() + 5_000, 60_000)).resolves.toBe("done");
    await expect(beforeDeadline(Promise.reject(new Error("boom")), Date.now() + 5_000, 60_000)).rejects.toThrow("boom");
  });

  it("refuses at once when the deadline has passed", async () => {
    await expect(beforeDeadline(new Promise(() => {}), Date.now() - 1, 1_000)).rejects.toBeInstanceOf(CapReached);
  });
});

describe("the simulated caller's answer", () => {
  it.each([
    ["[END]", { text: "", done: true }],
    ["  Thanks, bye! [END] ", { text: "Thanks, bye!", done: true }],
    ["I want a refund.", { text: "I want a refund.", done: false }],
    ["   ", { text: "", done: true }],
  ])("%j", (answer, read) => {
    expect(readCallerAnswer(answer)).toEqual(read);
  });
});
