// What a search result shows of the message that matched: the term where the message has it, in the
// message's own case, with a few words either side. Cuts fall between user-perceived characters
// (grapheme clusters: an emoji with its modifiers, a letter with its accents), never inside one, and
// between words where the text has spaces.

export interface Excerpt {
  /** What comes before the match, "…" first when the message had more. */
  before: string;
  /** The match as the message writes it; "" when the term is not found in the text as given. */
  match: string;
  /** What follows it, "…" last when the message had more. */
  after: string;
}

/** Characters (grapheme clusters) kept either side of the match. */
export const EXCERPT_CONTEXT = 60;

const graphemes = (text: string): string[] =>
  Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text), (s) => s.segment);

/** A regular expression's syntax characters escaped: the term as literal text. */
const literal = (term: string) => term.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

const isSpace = (g: string | undefined) => g !== undefined && /^\s+$/u.test(g);

/** The last `n` characters of `text`, "…" first when some were cut, a word cut at the edge left out (when there is another). */
function tail(text: string, n: number): string {
  const g = graphemes(text);
  if (g.length <= n) return text;
  let kept = g.slice(g.length - n);
  const space = kept.findIndex(isSpace);
  if (!isSpace(g[g.length - n - 1]) && space >= 0 && space < kept.length - 1) kept = kept.slice(space + 1);
  return `…${kept.join("").trimStart()}`;
}

/** The first `n` characters of `text`, "…" last when some were cut, a word cut at the edge left out (when there is another). */
function head(text: string, n: number): string {
  const g = graphemes(text);
  if (g.length <= n) return text;
  let kept = g.slice(0, n);
  const space = kept.findLastIndex(isSpace);
  if (!isSpace(g[n]) && space > 0) kept = kept.slice(0, space);
  return `${kept.join("").trimEnd()}…`;
}

/**
 * The excerpt of `text` around the first place `term` occurs, compared case-insensitively by
 * Unicode's case folding (both read as NFC). The database found the message by its own folding;
 * should this one not find the term, the excerpt is the message's start, with nothing marked.
 */
export function excerptOf(text: string, term: string, context = EXCERPT_CONTEXT): Excerpt {
  const message = text.normalize("NFC");
  const wanted = term.normalize("NFC");
  const found = wanted === "" ? null : new RegExp(literal(wanted), "iu").exec(message);
  if (!found) return { before: "", match: "", after: head(message, context * 2) };
  const start = found.index;
  const end = start + found[0].length;
  return { before: tail(message.slice(0, start), context), match: found[0], after: head(message.slice(end), context) };
}
