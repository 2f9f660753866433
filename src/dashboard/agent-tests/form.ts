// A test's form (the Tests page's "New test" and a test's own page): its fields, turned into the
// API's body (createTestSchema / updateTestSchema, the API's own), a saved test back into fields,
// and the schemas' issue paths back onto the fields. Tool expectations are rows of three fields
// (`expectTool.N`, `expectCalled.N`, `expectArguments.N`); a row with no tool is left out.
import type { AgentTest } from "../../db/schema";
import { type Form, lines, num, one } from "../forms";
import type { FieldErrors } from "../ui";

/** The API's cap on a test's tool expectations (toolExpectationSchema's list). */
export const MAX_EXPECTATIONS = 20;
/** Empty rows the form offers below the test's expectations, to add some. */
const BLANK_ROWS = 2;

export interface ExpectationValues {
  tool: string;
  /** "yes": must be called; "no": must never be. */
  called: "yes" | "no";
  /** A JSON object, or "". */
  arguments: string;
}

export interface TestValues {
  name: string;
  kind: "script" | "simulated";
  turns: string;
  persona: string;
  goal: string;
  firstMessage: string;
  maxTurns: string;
  criteria: string;
  /** A JSON array of extraction fields, or "". */
  extractionFields: string;
  judgeModel: string;
  expectations: ExpectationValues[];
}

export const EMPTY_TEST: TestValues = {
  name: "",
  kind: "script",
  turns: "",
  persona: "",
  goal: "",
  firstMessage: "",
  maxTurns: "10",
  criteria: "",
  extractionFields: "",
  judgeModel: "",
  expectations: [],
};

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A saved test as the form shows it. */
export function valuesOfTest(test: AgentTest): TestValues {
  const s = test.scenario;
  return {
    name: test.name,
    kind: s.kind,
    turns: s.kind === "script" ? s.turns.join("\n") : "",
    persona: s.kind === "simulated" ? s.persona : "",
    goal: s.kind === "simulated" ? s.goal : "",
    firstMessage: s.kind === "simulated" ? (s.firstMessage ?? "") : "",
    maxTurns: s.kind === "simulated" ? String(s.maxTurns) : "10",
    criteria: test.criteria.successCriteria.join("\n"),
    extractionFields: test.criteria.extractionFields.length ? pretty(test.criteria.extractionFields) : "",
    judgeModel: test.judgeModel ?? "",
    expectations: test.toolExpectations.map((e) => ({
      tool: e.tool,
      called: e.called === false ? "no" : "yes",
      arguments: e.arguments ? pretty(e.arguments) : "",
    })),
  };
}

/** The rows the form posted (each row sends its three fields, so the tool's field says a row is there). */
function expectationRows(form: Form): ExpectationValues[] {
  const rows: ExpectationValues[] = [];
  for (let i = 0; i < MAX_EXPECTATIONS + BLANK_ROWS && form[`expectTool.${i}`] !== undefined; i++)
    rows.push({
      tool: one(form, `expectTool.${i}`).trim(),
      called: one(form, `expectCalled.${i}`) === "no" ? "no" : "yes",
      arguments: one(form, `expectArguments.${i}`),
    });
  return rows;
}

/** What was typed, to draw the form again as it was sent. */
export const testValuesOf = (form: Form): TestValues => ({
  name: one(form, "name"),
  kind: one(form, "kind") === "simulated" ? "simulated" : "script",
  turns: one(form, "turns"),
  persona: one(form, "persona"),
  goal: one(form, "goal"),
  firstMessage: one(form, "firstMessage"),
  maxTurns: one(form, "maxTurns"),
  criteria: one(form, "criteria"),
  extractionFields: one(form, "extractionFields"),
  judgeModel: one(form, "judgeModel"),
  expectations: expectationRows(form).filter((r) => r.tool !== "" || r.arguments.trim() !== ""),
});

/** The form's rows: the test's expectations, then blank ones to add more (up to the API's cap). */
export const formRows = (values: TestValues): ExpectationValues[] => [
  ...values.expectations,
  ...Array.from({ length: Math.max(0, Math.min(BLANK_ROWS, MAX_EXPECTATIONS - values.expectations.length)) }, () => ({
    tool: "",
    called: "yes" as const,
    arguments: "",
  })),
];

function parseJson(text: string, field: string, pre: FieldErrors): unknown {
  try {
    return JSON.parse(text);
  } catch {
    pre[field] = "must be valid JSON";
    return undefined;
  }
}

export interface TestBody {
  /** The API's body (the scenario the kind chose; the other kind's fields are ignored). */
  body: Record<string, unknown>;
  /** Problems found before the schema (JSON that does not parse), by field. */
  pre: FieldErrors;
  /** For each of the body's tool expectations, the form's row it came from. */
  rows: number[];
}

export function testBodyOf(form: Form): TestBody {
  const values = testValuesOf(form);
  const pre: FieldErrors = {};
  const rows: number[] = [];
  const toolExpectations: unknown[] = [];
  expectationRows(form).forEach((row, i) => {
    const args = row.arguments.trim();
    if (row.tool === "" && args === "") return;
    if (row.tool === "") pre[`expectTool.${i}`] = "Choose the tool these arguments are for.";
    const parsed = args === "" ? undefined : parseJson(args, `expectArguments.${i}`, pre);
    rows.push(i);
    toolExpectations.push({ tool: row.tool, called: row.called === "yes", ...(parsed === undefined ? {} : { arguments: parsed }) });
  });
  const fields = values.extractionFields.trim() === "" ? [] : (parseJson(values.extractionFields, "extractionFields", pre) ?? []);
  const firstMessage = values.firstMessage.trim();
  return {
    body: {
      name: values.name,
      scenario:
        values.kind === "script"
          ? { kind: "script", turns: lines(form, "turns") }
          : {
              kind: "simulated",
              persona: values.persona,
              goal: values.goal,
              ...(firstMessage ? { firstMessage } : {}),
              maxTurns: num(form, "maxTurns"),
            },
      criteria: { successCriteria: lines(form, "criteria"), extractionFields: fields },
      toolExpectations,
      judgeModel: values.judgeModel.trim() || null,
    },
    pre,
    rows,
  };
}

/**
 * The schema's issue paths on the form's fields: `scenario.turns.0` → `turns`, `criteria.successCriteria.2` →
 * `criteria`, `criteria.extractionFields.1.name` → `extractionFields` ("1.name: …"), `toolExpectations.0.arguments`
 * → `expectArguments.<row>`; the form's own names otherwise.
 */
export function onTestFields(errors: FieldErrors, rows: number[] = []): FieldErrors {
  const out: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const [head, field, ...rest] = path.split(".");
    let name: string;
    let text = message;
    if (head === "scenario") name = field === undefined || field === "kind" ? "turns" : field;
    else if (head === "criteria" && field === "extractionFields") {
      name = "extractionFields";
      if (rest.length) text = `${rest.join(".")}: ${message}`;
    } else if (head === "criteria") name = "criteria";
    else if (head === "toolExpectations") {
      const row = rows[Number(field)];
      const part = rest[0] === "arguments" ? "expectArguments" : rest[0] === "called" ? "expectCalled" : "expectTool";
      name = row === undefined ? "expectations" : `${part}.${row}`;
    } else name = path || "form"; // the form's own names (`name`, `judgeModel`, `expectTool.2`…)
    out[name] ??= text;
  }
  return out;
}
