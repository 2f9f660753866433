// When an agent's reply ends the call by an end-call phrase (docs/agents.md, `endCallPhrases`): the
// phrase must open a clause of the reply ("Goodbye! Have a great day.", "Thanks for calling, goodbye
// and take care.") or close the reply ("Thank you and goodbye."), and no question may follow it. A
// phrase inside a clause ("Before we say goodbye, let me confirm your appointment.") or followed by a
// question ("Goodbye? Are you still there?") is talk, not a farewell.

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where a clause starts: the reply's start, or after a sentence or clause mark. */
const CLAUSE_START = String.raw`(?:^|[.!?,;:\u2014\u2013]\s*|\s[-\u2014\u2013]\s*)`;
/** Nothing but punctuation, quotes and spaces to the end of the reply. */
const REPLY_END = String.raw`[\s\p{P}\p{S}]*$`;

/** Whether `said` (one played reply) ends the call by one of `phrases`. */
export function saysFarewell(said: string, phrases: readonly string[]): boolean {
  const text = said.trim().toLowerCase();
  return phrases.some((raw) => {
    const phrase = raw.trim().toLowerCase();
    if (!phrase) return false;
    const p = literal(phrase).replace(/\s+/g, "\\s+");
    // The phrase as whole words: "goodbye" is not in "goodbyes".
    const opens = new RegExp(`${CLAUSE_START}(${p})(?![\\p{L}\\p{N}])`, "gu");
    const closes = new RegExp(`(?<![\\p{L}\\p{N}])(${p})${REPLY_END}`, "u");
    const ends: number[] = [];
    for (const m of text.matchAll(opens)) ends.push((m.index ?? 0) + m[0].length);
    const last = closes.exec(text);
    if (last) ends.push(last.index + last[0].length);
    return ends.some((end) => !text.slice(end).includes("?"));
  });
}
