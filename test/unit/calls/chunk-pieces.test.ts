// SentenceChunker's pieces: the same sentence-sized chunks, given out as they are written in
// clause-sized pieces (for a voice that takes text as it comes), each chunk's last piece marked.
import { describe, expect, it } from "vitest";
import { type ChunkPiece, SentenceChunker } from "../../../src/calls/utterance";

const piecesOf = (parts: string[]) => {
  const c = new SentenceChunker();
  return [...parts.flatMap((p) => c.pieces(p)), ...c.flushPieces()];
};
const chunksOf = (parts: string[]) => {
  const c = new SentenceChunker();
  return [...parts.flatMap((p) => c.push(p)), ...c.flush()];
};
/** The chunks the pieces make: each chunk's pieces joined, up to its last. */
const joined = (pieces: ChunkPiece[]) => {
  const out: string[] = [];
  let open: string[] = [];
  for (const p of pieces) {
    open.push(p.text);
    if (!p.partial) {
      out.push(open.filter(Boolean).join(" "));
      open = [];
    }
  }
  return out;
};

describe("SentenceChunker pieces", () => {
  it("gives a sentence's clauses out as soon as each is written, once it holds three words", () => {
    const c = new SentenceChunker();
    expect(c.pieces("You said: Yes,")).toEqual([]);
    // "You said: Yes," is the first chunk (a clause of 12 characters or more).
    expect(c.pieces(" I would like to book an appointment, ")).toEqual([
      { text: "You said: Yes,", partial: false },
      { text: "I would like to book an appointment,", partial: true },
    ]);
    expect(c.pieces("please. It")).toEqual([{ text: "please.", partial: false }]);
    expect(c.flushPieces()).toEqual([{ text: "It", partial: false }]);
    // Too short a clause waits for the next one.
    const d = new SentenceChunker();
    expect(d.pieces("It is fine. Yes, ")).toEqual([{ text: "It is fine.", partial: false }]);
    expect(d.pieces("of course, ")).toEqual([{ text: "Yes, of course,", partial: true }]);
  });

  it("a long run without a clause mark is given out once it holds eight whole words", () => {
    const c = new SentenceChunker();
    expect(c.pieces("Your table for two on Tuesday evening")).toEqual([]);
    expect(c.pieces(" at seven is")).toEqual([
      { text: "Your table for two on Tuesday evening at seven", partial: true }, // "is" may go on ("island")
    ]);
    expect(c.pieces(" booked. ")).toEqual([{ text: "is booked.", partial: false }]);
  });

  it("makes the same chunks as `push`, whatever the token boundaries", () => {
    const text =
      "Of course, let me see: your order, number 42, has shipped. It left today, by courier, and should reach you, I think, by Friday. Fine";
    for (const split of [[text], text.split(/(?=\s)/), [...text]]) {
      const pieces = piecesOf(split);
      expect(joined(pieces)).toEqual(chunksOf(split));
      // Text that comes whole is cut into whole chunks; streamed, a sentence's clauses go out first.
      expect(pieces.some((p) => p.partial)).toBe(split.length > 1);
    }
    const long = `${"word ".repeat(40)}, ${"more ".repeat(40)}`;
    expect(joined(piecesOf([long]))).toEqual(chunksOf([long]));
  });

  it("a chunk whose words all went out as pieces ends with an empty piece", () => {
    const c = new SentenceChunker();
    expect(c.pieces("Well, first of all, ")).toEqual([{ text: "Well, first of all,", partial: false }]);
    expect(c.pieces("thank you for calling, ")).toEqual([{ text: "thank you for calling,", partial: true }]);
    expect(c.flushPieces()).toEqual([{ text: "", partial: false }]);
    expect(c.flushPieces()).toEqual([]);
  });
});
