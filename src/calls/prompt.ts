// Per-call variables in the agent's system prompt, first message and voicemail message: `{{name}}`
// is replaced by the call's variable of that name (Vapi's and Retell's dynamic variables). A call
// placed with variables (the API's `variables`, a campaign's row) must give every name the agent's
// templates use (`requireVariables`); a call that cannot give any (inbound, the widget, the
// dashboard's test call) leaves an unknown name as written, so it shows in the transcript instead
// of vanishing.
import type { Agent } from "../db/schema";
import { ApiError } from "../lib/errors";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

export function renderTemplate(template: string, variables: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(variables, name) ? (variables[name] as string) : whole));
}

/** The variable names an agent's templates use, each once, in the order they first appear. */
export function templateVariables(agent: Pick<Agent, "systemPrompt" | "firstMessage" | "voicemail">): string[] {
  const names = new Set<string>();
  for (const text of [agent.systemPrompt, agent.firstMessage ?? "", agent.voicemail?.message ?? ""])
    for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1] as string);
  return [...names];
}

/** The names the agent's templates use that `variables` lacks. */
export const missingVariables = (agent: Pick<Agent, "systemPrompt" | "firstMessage" | "voicemail">, variables: Record<string, string>) =>
  templateVariables(agent).filter((name) => !Object.hasOwn(variables, name));

/** `400 variables_missing` naming each variable the agent's templates use and `variables` lacks. */
export function requireVariables(
  agent: Pick<Agent, "systemPrompt" | "firstMessage" | "voicemail">,
  variables: Record<string, string>,
  path: Array<string | number> = ["variables"],
): void {
  const missing = missingVariables(agent, variables);
  if (missing.length === 0) return;
  const list = missing.map((n) => `{{${n}}}`).join(", ");
  throw new ApiError(
    "variables_missing",
    `The agent's prompt or messages use ${list}, which the variables do not give; add ${missing.length === 1 ? "it" : "them"}.`,
    {
      issues: missing.map((name) => ({ path: [...path, name].join("."), message: `Required by the agent's templates ({{${name}}}).` })),
    },
  );
}
