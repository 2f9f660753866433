// What changed between two values of an agent's field, for the versions' diff page: each value as
// text (a string as it is, anything else as indented JSON), then the longest common subsequence
// of their lines (of their words when both fit on one line), the rest removed or added.

export interface DiffPart {
  op: "same" | "del" | "ins";
  text: string;
}

/** Above this many cells (tokens before × after) the texts are shown removed whole, then added whole. */
const MAX_CELLS = 1_000_000;

/** A field's value as the diff shows it. */
export const diffText = (value: unknown): string =>
  value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value, null, 2);

/**
 * The tokens of `a` and `b` in order, each kept, removed (from `a`) or added (from `b`); runs of one
 * op merged into one part, their tokens joined by `joiner`.
 */
export function diffTokens(a: readonly string[], b: readonly string[], joiner = "\n"): DiffPart[] {
  const out: DiffPart[] = [];
  const push = (op: DiffPart["op"], text: string) => {
    const last = out[out.length - 1];
    if (last && last.op === op) last.text += joiner + text;
    else out.push({ op, text });
  };
  if (a.length * b.length > MAX_CELLS) {
    if (a.length) out.push({ op: "del", text: a.join(joiner) });
    if (b.length) out.push({ op: "ins", text: b.join(joiner) });
    return out;
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], as a flat array.
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * w + j] =
        a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
  const parts: Array<[DiffPart["op"], string]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      parts.push(["same", a[i] as string]);
      i++;
      j++;
    } else if (i < a.length && (j === b.length || (lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number))) {
      // Removed before added, where either would do.
      parts.push(["del", a[i] as string]);
      i++;
    } else {
      parts.push(["ins", b[j] as string]);
      j++;
    }
  }
  for (const [op, text] of parts) push(op, text);
  return out;
}

export interface FieldDiff {
  /** `lines`: each part is whole lines (joined by "\n"); `words`: parts of one line, to show inline. */
  kind: "lines" | "words";
  parts: DiffPart[];
}

/** The diff of two values of a field: by words when both are one line, else by lines. */
export function diffValues(before: unknown, after: unknown): FieldDiff {
  const a = diffText(before);
  const b = diffText(after);
  if (!a.includes("\n") && !b.includes("\n")) {
    // Words and the white space between them, so the parts put together are the texts again.
    const words = (s: string) => s.split(/(\s+)/).filter((t) => t !== "");
    return { kind: "words", parts: diffTokens(words(a), words(b), "") };
  }
  return { kind: "lines", parts: diffTokens(a === "" ? [] : a.split("\n"), b === "" ? [] : b.split("\n")) };
}
