// The sandbox's stand-ins for the two LLM roles of an agent test (docs/agent-tests.md), recognised by
// the first words of their system prompts (src/agent-tests/caller.ts, judge.ts), so a run on the
// local stack is deterministic (docs/sandbox.md, "Agent tests"):
// - the simulated caller says its goal's sentences one per message, in order, then `[END]`;
// - the judge passes a criterion when the transcript contains every phrase the criterion quotes
//   (or, quoting none, its longest word), and extracts nothing (null for every field).

export const CALLER_PROMPT_START = "You are the simulated caller in a test of an AI agent.";
export const JUDGE_PROMPT_START = "You judge a test conversation between an AI agent and a simulated caller.";
/** What the `fault-prose` model answers whatever it is asked: prose that ignores the format asked for. */
export const PROSE_ANSWER = "I think the conversation went well overall, but I would rather not answer in a particular format.";

interface Said {
  role: string;
  text: string;
}

const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** A goal's sentences: split after `.`, `!` or `?` followed by a space. */
export const sentencesOf = (goal: string): string[] =>
  collapse(goal)
    .split(/(?<=[.!?])\s+/)
    .filter(Boolean);

/** The caller's next message: the goal's sentence at the index of its own messages so far, then `[END]`. */
export function callerReply(system: string, messages: readonly Said[]): string {
  const goal = /^Goal: (.*)$/m.exec(system)?.[1] ?? "";
  const said = messages.filter((m) => m.role === "assistant").length;
  return sentencesOf(goal)[said] ?? "[END]";
}

/** The phrases a criterion is judged by: those it quotes ("…" or “…”), else its longest word. */
export function keywordsOf(criterion: string): string[] {
  const quoted = [...criterion.matchAll(/"([^"]+)"|“([^”]+)”/g)].map((m) => collapse(m[1] ?? m[2] ?? "")).filter(Boolean);
  if (quoted.length > 0) return quoted;
  const words = criterion.match(/[\p{L}\p{N}]+/gu) ?? [];
  const longest = words.reduce((a, w) => (w.length > a.length ? w : a), "");
  return longest ? [longest] : [];
}

const jsonLine = (system: string, label: string): unknown => {
  const line = new RegExp(`^${label} \\(JSON\\): (.*)$`, "m").exec(system)?.[1];
  try {
    return line ? JSON.parse(line) : [];
  } catch {
    return [];
  }
};

/** The judge's JSON: each criterion passed when the transcript (the last user message) has its phrases. */
export function judgeReply(system: string, lastUser: string): string {
  const transcript = collapse(lastUser).toLowerCase();
  const criteria = jsonLine(system, "Success criteria");
  const fields = jsonLine(system, "Fields to extract");
  const criteriaResults = (Array.isArray(criteria) ? criteria : []).map((c) => {
    const criterion = String(c);
    const missing = keywordsOf(criterion).filter((k) => !transcript.includes(k.toLowerCase()));
    const phrases = (list: string[]) => list.map((k) => `"${k}"`).join(", ");
    return missing.length === 0
      ? { criterion, passed: true, reason: `The transcript mentions ${phrases(keywordsOf(criterion))}.` }
      : { criterion, passed: false, reason: `The transcript never mentions ${phrases(missing)}.` };
  });
  const extractedData = Object.fromEntries(
    (Array.isArray(fields) ? fields : []).map((f) => [String((f as { name?: unknown })?.name ?? ""), null]),
  );
  return JSON.stringify({ criteriaResults, extractedData });
}
