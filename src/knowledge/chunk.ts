// Chunking by structure (docs/knowledge.md, "Chunks"): a document's text, with Markdown-style
// headings (`#` lines; HTML and PDF text are brought to that form first), is cut into passages of
// at most CHUNK_TOKENS that never cross a heading, each starting with the tail of the one before
// (OVERLAP_TOKENS) so a sentence cut between two passages is found in both. Paragraphs are kept
// whole when they fit; a longer one is cut at sentence ends, and a sentence longer than a passage
// at word boundaries. Pure: no I/O.

/** A passage's size ceiling, in estimated tokens (four characters each). */
export const CHUNK_TOKENS = 300;
/** How much of the previous passage of the same section starts the next. */
export const OVERLAP_TOKENS = 40;

export interface Chunk {
  /** The heading path it sits under, joined with " › " (empty when none). */
  heading: string;
  content: string;
  tokens: number;
}

/** The estimate every limit here uses (and the metering's before the provider counts). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

interface Section {
  path: string[];
  paragraphs: string[];
}

/** The text's sections: the paragraphs under each heading path, in order. */
function sections(text: string): Section[] {
  const out: Section[] = [];
  const path: string[] = [];
  let current: Section = { path: [], paragraphs: [] };
  let paragraph: string[] = [];
  const endParagraph = () => {
    const p = paragraph.join(" ").replace(/\s+/g, " ").trim();
    if (p) current.paragraphs.push(p);
    paragraph = [];
  };
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    const heading = HEADING.exec(line);
    if (heading) {
      endParagraph();
      if (current.paragraphs.length) out.push(current);
      const level = (heading[1] as string).length;
      path.length = Math.min(path.length, level - 1);
      path[level - 1] = (heading[2] as string).trim();
      current = { path: path.filter(Boolean), paragraphs: [] };
    } else if (line.trim() === "") {
      endParagraph();
    } else {
      paragraph.push(line.trim());
    }
  }
  endParagraph();
  if (current.paragraphs.length) out.push(current);
  return out;
}

/** Pieces of a paragraph no longer than `max` tokens: sentences, or words when a sentence is longer. */
function pieces(paragraph: string, max: number): string[] {
  if (estimateTokens(paragraph) <= max) return [paragraph];
  const sentences = paragraph.match(/[^.!?。！？]+(?:[.!?。！？]+["'”’)\]]*\s*|$)/g) ?? [paragraph];
  const out: string[] = [];
  for (const raw of sentences) {
    const sentence = raw.trim();
    if (!sentence) continue;
    if (estimateTokens(sentence) <= max) {
      out.push(sentence);
      continue;
    }
    let piece = "";
    for (const word of sentence.split(/\s+/)) {
      // A "word" longer than a passage (a URL, text without spaces) is cut where it must be.
      for (let at = 0; at < word.length; at += max * 4) {
        const part = word.slice(at, at + max * 4);
        if (piece && estimateTokens(`${piece} ${part}`) > max) {
          out.push(piece);
          piece = part;
        } else piece = piece ? `${piece} ${part}` : part;
      }
    }
    if (piece) out.push(piece);
  }
  return out;
}

/** The last words of a passage, about `tokens` long, to start the next with. */
function tail(content: string, tokens: number): string {
  const words = content.split(/\s+/);
  let taken = "";
  for (let i = words.length - 1; i >= 0; i--) {
    const next = taken ? `${words[i]} ${taken}` : (words[i] as string);
    if (estimateTokens(next) > tokens) break;
    taken = next;
  }
  return taken;
}

/** The passages of a document's text, in order. Empty when the text has no words. */
export function chunkText(text: string, opts: { maxTokens?: number; overlapTokens?: number } = {}): Chunk[] {
  const max = opts.maxTokens ?? CHUNK_TOKENS;
  const overlap = Math.min(opts.overlapTokens ?? OVERLAP_TOKENS, Math.floor(max / 4));
  const chunks: Chunk[] = [];
  for (const section of sections(text)) {
    const heading = section.path.join(" › ");
    let content = "";
    const flush = () => {
      if (content) chunks.push({ heading, content, tokens: estimateTokens(content) });
    };
    // Room for the overlap: a piece never fills a passage on its own.
    for (const piece of section.paragraphs.flatMap((p) => pieces(p, max - overlap))) {
      if (content && estimateTokens(`${content}\n\n${piece}`) > max) {
        flush();
        const carried = tail(content, overlap);
        content = carried ? `${carried}\n\n${piece}` : piece;
      } else {
        content = content ? `${content}\n\n${piece}` : piece;
      }
    }
    flush();
  }
  return chunks;
}
