// What a caller says that is not a turn: backchannels ("mhm", "yeah", "right", "I see") that
// acknowledge the agent without taking the floor (docs/calls.md, "Interruptions, backchannels and noise").

/** Words that acknowledge without taking the turn. */
export const BACKCHANNELS = new Set(
  "mhm mhmm mmhm mmhmm mm mmm hmm uh uhhuh um yeah yep yes ok okay right sure aha ah oh huh i see got it".split(" "),
);

/** The words of a transcript that are not backchannels. */
export function substantiveWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}']/gu, ""))
    .filter((w) => w && !BACKCHANNELS.has(w));
}

/** The same words, whatever the punctuation and case (Flux's final transcript may repunctuate the eager one). */
export function sameWords(a: string, b: string): boolean {
  const words = (t: string) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s']/gu, "")
      .split(/\s+/)
      .filter(Boolean)
      .join(" ");
  return words(a) === words(b);
}
