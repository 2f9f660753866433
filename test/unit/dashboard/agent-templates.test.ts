// The New agent page's templates (src/dashboard/agents/templates.ts) are valid agents as they are:
// their form values pass the API's own schema (the form's path: inputOf → createAgentSchema).
import { describe, expect, it } from "vitest";
import { createAgentSchema } from "../../../src/agents/schema";
import { inputOf, valuesOf } from "../../../src/dashboard/agents/form";
import { AGENT_TEMPLATES, templateOf } from "../../../src/dashboard/agents/templates";

const formOf = (values: Record<string, string | boolean | string[]>) =>
  Object.fromEntries(
    Object.entries(values).flatMap(([k, v]) => (typeof v === "boolean" ? (v ? [[k, ["on"]]] : []) : [[k, Array.isArray(v) ? v : [v]]])),
  ) as Record<string, string[]>;

describe("agent templates", () => {
  it.each(AGENT_TEMPLATES.map((t) => [t.key, t] as const))("%s passes the API's schema unchanged", (_, template) => {
    const errors = {};
    const input = inputOf(formOf({ ...valuesOf(null), ...template.values }), errors);
    expect(errors).toEqual({});
    const parsed = createAgentSchema.safeParse(input);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data?.name).toBe(template.values.name);
  });

  it("has the three the issue names, each found by its key; an unknown key is none", () => {
    expect(AGENT_TEMPLATES.map((t) => t.key)).toEqual(["receptionist", "appointment-reminder", "support"]);
    expect(templateOf("support")?.label).toBe("Customer support");
    expect(templateOf("nope")).toBeUndefined();
    expect(templateOf(undefined)).toBeUndefined();
  });
});
