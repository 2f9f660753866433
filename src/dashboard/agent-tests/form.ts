// The Tests page's "New test" form: its fields, turned into POST /v1/agents/{id}/tests's body
// (createTestSchema, the API's own), and the schema's issue paths back onto the fields.
import { type Form, lines, num, one } from "../forms";
import type { FieldErrors } from "../ui";

export interface TestValues {
  name: string;
  kind: "script" | "simulated";
  turns: string;
  persona: string;
  goal: string;
  maxTurns: string;
  criteria: string;
}

export const EMPTY_TEST: TestValues = { name: "", kind: "script", turns: "", persona: "", goal: "", maxTurns: "10", criteria: "" };

export const testValuesOf = (form: Form): TestValues => ({
  name: one(form, "name"),
  kind: one(form, "kind") === "simulated" ? "simulated" : "script",
  turns: one(form, "turns"),
  persona: one(form, "persona"),
  goal: one(form, "goal"),
  maxTurns: one(form, "maxTurns"),
  criteria: one(form, "criteria"),
});

/** The API's body: the scenario the kind chose (the other kind's fields are ignored), one criterion a line. */
export const testBodyOf = (form: Form) => {
  const values = testValuesOf(form);
  return {
    name: values.name,
    scenario:
      values.kind === "script"
        ? { kind: "script", turns: lines(form, "turns") }
        : { kind: "simulated", persona: values.persona, goal: values.goal, maxTurns: num(form, "maxTurns") },
    criteria: { successCriteria: lines(form, "criteria"), extractionFields: [] },
  };
};

/** `scenario.turns.0` → `turns`, `criteria.successCriteria.2` → `criteria`; the form's own names otherwise. */
export function onTestFields(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const [head, field] = path.split(".");
    const name = head === "scenario" ? (field ?? "turns") : head === "criteria" ? "criteria" : (head ?? "form");
    out[name === "kind" ? "turns" : name] ??= message;
  }
  return out;
}
