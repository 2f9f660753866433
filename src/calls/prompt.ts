// Per-call variables in the agent's system prompt and first message: `{{name}}` is replaced by
// the call's variable of that name (Vapi's and Retell's dynamic variables); an unknown name is
// left as written, so a typo shows in the transcript instead of vanishing.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

export function renderTemplate(template: string, variables: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(variables, name) ? (variables[name] as string) : whole));
}
