// Retrieval while the caller is still speaking (docs/knowledge.md, "Retrieval"): a call whose
// transcription streams hears the caller's words as they come (Flux's updates, Nova's interim
// results); each time the words have grown by a few, their passages are looked up in the
// background, so when the turn ends the search for (nearly) the same words is done or under way and
// the reply does not wait for the embedding. At most one search runs at a time; the latest words
// wait for it. The reply takes a search whose words cover the turn's; otherwise it searches anew.
import type { Passage } from "./search";

/** Words a search needs before it is worth making. */
const MIN_WORDS = 3;
/** New words since the last search before another is made. */
const NEW_WORDS = 2;
/** The share of the turn's words a search's words must hold for its passages to stand for the turn. */
const COVERS = 0.8;

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Whether passages found for `searched` stand for `question`: most of the question's words were searched. */
export function covers(searched: string, question: string): boolean {
  const asked = wordsOf(question);
  if (asked.length === 0) return false;
  const had = new Set(wordsOf(searched));
  return asked.filter((w) => had.has(w)).length / asked.length >= COVERS;
}

export interface Prefetch {
  /** The caller's words so far in this turn. */
  hint(text: string): void;
  /** Passages for the turn's `question`, when a search of words that cover it was made. */
  take(question: string): Promise<Passage[]> | null;
}

export class KnowledgePrefetch implements Prefetch {
  private last: { text: string; words: number; passages: Promise<Passage[]> } | null = null;
  private running = false;
  private waiting: string | null = null;
  /** Searches made, for the call's figures. */
  searches = 0;

  constructor(private readonly find: (text: string) => Promise<Passage[]>) {}

  hint(text: string): void {
    const words = wordsOf(text).length;
    if (words < MIN_WORDS) return;
    if (this.last && words < this.last.words + NEW_WORDS && covers(this.last.text, text)) return;
    if (this.running) {
      this.waiting = text;
      return;
    }
    this.start(text, words);
  }

  private start(text: string, words: number): void {
    this.running = true;
    this.searches++;
    const passages = this.find(text);
    // A failed search is the reply's to redo, never an unhandled rejection.
    passages.catch(() => undefined);
    this.last = { text, words, passages };
    void passages
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
        const next = this.waiting;
        this.waiting = null;
        if (next !== null) this.hint(next);
      });
  }

  take(question: string): Promise<Passage[]> | null {
    const last = this.last;
    // A turn taken: the next one starts from nothing.
    this.last = null;
    this.waiting = null;
    if (!last || !covers(last.text, question)) return null;
    return last.passages;
  }
}
