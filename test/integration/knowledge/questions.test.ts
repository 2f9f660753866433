// The knowledge bench's question set on the local stack (docs/benchmarks.md, "Knowledge bases"):
// three documents uploaded as files, processed by the worker with the provider sandbox's
// embeddings, and 30 questions each answered by one passage. The goal: the right passage in
// the top 5 for at least 27 of them. bench/knowledge-set.ts holds the set and the counting, which
// `npm run bench -- --only knowledge` runs too.
import { describe, expect, it } from "vitest";
import { runQuestionSet, SET_GOAL } from "../../../bench/knowledge-set";
import { createWorkspace } from "../../support/harness";

describe("the knowledge question set", () => {
  it(`finds the passage that answers in the top 5 for at least ${SET_GOAL} of the 30 questions`, async () => {
    const ws = await createWorkspace("Question set");
    const result = await runQuestionSet(ws.api);
    expect(result.questions).toBe(30);
    // Every document became passages (the three have 39 sections with text).
    expect(result.passages).toBeGreaterThanOrEqual(30);
    const missed = result.outcomes.filter((o) => o.rank === null).map((o) => `${o.question} → ${o.first}`);
    expect(result.hitsAt5, `missed: ${missed.join("; ")}`).toBeGreaterThanOrEqual(SET_GOAL);
    expect(result.hitsAt1).toBeLessThanOrEqual(result.hitsAt5);
  });
});
