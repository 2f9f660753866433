// Searching text with LIKE / ILIKE: what a user typed is found as it is written, anywhere in the
// column. LIKE treats `%` (any run), `_` (any one character) and `\` (its escape character)
// specially; the pattern escapes each, so a search for "50%" finds "50%", not "500".

/** The ILIKE pattern that finds `term` anywhere in a text, its `%`, `_` and `\` taken literally. */
export const containsPattern = (term: string): string => `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
