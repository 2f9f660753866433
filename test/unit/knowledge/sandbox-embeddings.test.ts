// The provider sandbox's embeddings (dev/sandbox/embeddings.ts): deterministic unit vectors where
// texts that share words are nearer than texts that do not; OpenAI's request shape and errors.
import { describe, expect, it } from "vitest";
import { embed, parseEmbeddingRequest, sandboxEmbedding } from "../../../dev/sandbox/embeddings";

const cosine = (a: number[], b: number[]) => a.reduce((n, x, i) => n + x * (b[i] as number), 0);

describe("sandboxEmbedding", () => {
  it("is deterministic, of the width asked, and of length 1", () => {
    const a = sandboxEmbedding("How much is a cleaning?", 512);
    expect(a).toEqual(sandboxEmbedding("How much is a cleaning?", 512));
    expect(a).toHaveLength(512);
    expect(Math.sqrt(cosine(a, a))).toBeCloseTo(1, 4);
    expect(Math.sqrt(cosine(sandboxEmbedding("", 64), sandboxEmbedding("", 64)))).toBeCloseTo(1, 6);
  });

  it("puts texts that share words nearer than texts that do not, plurals and -ing forms included", () => {
    const q = sandboxEmbedding("What are the prices of cleaning?", 512);
    const near = sandboxEmbedding("A cleaning costs 80 dollars; our price list has more.", 512);
    const far = sandboxEmbedding("Parking is free behind the building.", 512);
    expect(cosine(q, near)).toBeGreaterThan(cosine(q, far) + 0.2);
    expect(cosine(sandboxEmbedding("opening hours", 512), sandboxEmbedding("we open at eight", 512))).toBeGreaterThan(0.2);
  });
});

describe("the sandbox's POST /v1/embeddings", () => {
  it("answers OpenAI's shape: one embedding per input in order, and the tokens", () => {
    const out = embed(parseEmbeddingRequest({ model: "text-embedding-3-small", input: ["a b", "c d e f"], dimensions: 8 }));
    expect(out.data.map((d) => [d.index, d.embedding.length])).toEqual([
      [0, 8],
      [1, 8],
    ]);
    expect(out.usage.prompt_tokens).toBe(1 + 2);
  });

  it("refuses what OpenAI refuses", () => {
    expect(() => parseEmbeddingRequest({ input: "x" })).toThrow(/model/);
    expect(() => parseEmbeddingRequest({ model: "m", input: [] })).toThrow(/input/);
    expect(() => parseEmbeddingRequest({ model: "m", input: [""] })).toThrow(/empty/);
    expect(() => parseEmbeddingRequest({ model: "m", input: [1, 2] })).toThrow(/input/);
    expect(() => parseEmbeddingRequest({ model: "m", input: "x", dimensions: 0 })).toThrow(/dimensions/);
    expect(() => parseEmbeddingRequest({ model: "m", input: "x".repeat(40_000) })).toThrow(/maximum context length/);
  });
});
