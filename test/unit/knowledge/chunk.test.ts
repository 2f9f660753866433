// Chunking by structure (src/knowledge/chunk.ts): passages never cross a heading, stay under the
// ceiling, keep paragraphs whole when they fit, carry the tail of the previous passage, and lose no word.
import { describe, expect, it } from "vitest";
import { CHUNK_TOKENS, chunkText, estimateTokens } from "../../../src/knowledge/chunk";

const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe("chunkText", () => {
  it("gives each section its own passages, under its heading path", () => {
    const chunks = chunkText(
      "# Prices\n\n## Cleaning\n\nA cleaning costs 80 dollars.\n\n## Whitening\n\nWhitening costs 250.\n\n# Hours\n\nOpen 8 to 18.",
    );
    expect(chunks.map((c) => [c.heading, c.content])).toEqual([
      ["Prices › Cleaning", "A cleaning costs 80 dollars."],
      ["Prices › Whitening", "Whitening costs 250."],
      ["Hours", "Open 8 to 18."],
    ]);
  });

  it("keeps passages under the ceiling, with the previous passage's tail first, and loses no word", () => {
    const paragraphs = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i} says something useful about topic ${i} in a few more words than needed.`,
    );
    const text = paragraphs.join("\n\n");
    const chunks = chunkText(text, { maxTokens: 100, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(100);
    for (const [i, c] of chunks.entries()) {
      if (i === 0) continue;
      const before = words((chunks[i - 1] as { content: string }).content);
      const first = words(c.content).slice(0, 3).join(" ");
      expect(before.join(" ")).toContain(first);
    }
    const seen = new Set(chunks.flatMap((c) => words(c.content)));
    for (const w of words(text)) expect(seen.has(w)).toBe(true);
  });

  it("cuts a long paragraph at sentence ends, and a sentence without ends at words", () => {
    const sentences = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(" ");
    const chunks = chunkText(sentences, { maxTokens: 50, overlapTokens: 10 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(50);
    const run = "word ".repeat(2000);
    const cut = chunkText(run, { maxTokens: 60, overlapTokens: 10 });
    for (const c of cut) expect(c.tokens).toBeLessThanOrEqual(60);
    const unbroken = "x".repeat(5000);
    for (const c of chunkText(unbroken)) expect(c.tokens).toBeLessThanOrEqual(CHUNK_TOKENS);
  });

  it("gives nothing for text without words, and handles Windows line ends and unicode", () => {
    expect(chunkText("")).toEqual([]);
    expect(chunkText("\n\n   \n")).toEqual([]);
    const [only] = chunkText("# Zürich\r\n\r\nÖffnungszeiten: 8–18 Uhr 🎧");
    expect(only).toEqual({
      heading: "Zürich",
      content: "Öffnungszeiten: 8–18 Uhr 🎧",
      tokens: estimateTokens("Öffnungszeiten: 8–18 Uhr 🎧"),
    });
  });
});
