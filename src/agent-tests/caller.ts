// The simulated caller (docs/agent-tests.md, "Scenarios"): an LLM told who it is and what it wants,
// shown the conversation from its side (the agent's words as the user's), answering one message at
// a time, and `[END]` once its goal is reached or cannot be. The sandbox plays it by the first words
// of this prompt (dev/sandbox/agent-tests.ts).
import type { ChatTurn, TestScenario } from "../db/schema";
import type { ChatMessage } from "../providers/types";

export const CALLER_PROMPT_START = "You are the simulated caller in a test of an AI agent.";
export const END_MARKER = "[END]";
/** One message of the caller: a sentence or three. */
export const CALLER_MAX_TOKENS = 200;

type Simulated = Extract<TestScenario, { kind: "simulated" }>;

/** The caller's prompt and the conversation so far, seen from its side. */
export function callerMessages(scenario: Simulated, transcript: readonly ChatTurn[]): ChatMessage[] {
  const system = [
    CALLER_PROMPT_START,
    "Stay in character. Write only what the caller says next: one short message, no stage directions.",
    `When your goal is reached, or the conversation cannot reach it, answer exactly ${END_MARKER} and nothing else.`,
    `Persona: ${scenario.persona.replace(/\s+/g, " ")}`,
    `Goal: ${scenario.goal.replace(/\s+/g, " ")}`,
  ].join("\n");
  const messages: ChatMessage[] = [{ role: "system", content: system }];
  for (const t of transcript) {
    if (t.role === "tool") continue;
    messages.push({ role: t.role === "user" ? "assistant" : "user", content: t.text });
  }
  // The caller speaks first when the agent has no greeting: it is told the line is open.
  if (messages.length === 1) messages.push({ role: "user", content: "(The conversation starts. Say your first message.)" });
  return messages;
}

/** What the caller's answer means: the message it says, or the end (`[END]`, alone or closing its message). */
export function readCallerAnswer(answer: string): { text: string; done: boolean } {
  const trimmed = answer.trim();
  if (!trimmed.includes(END_MARKER)) return { text: trimmed, done: trimmed === "" };
  const text = trimmed.replace(END_MARKER, "").trim();
  return { text, done: true };
}
