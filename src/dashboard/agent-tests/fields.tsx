/** @jsxImportSource hono/jsx */
// A test's fields, one component for the Tests page's "New test" and a test's own page: its name,
// the scenario (a script, or a simulated caller), what it is judged on (success criteria,
// extraction fields), its tool expectations (each a tool of the agent, called or not, and the
// arguments one call must have) and the judge's model (docs/agent-tests.md).
import type { FC } from "hono/jsx";
import { type FieldErrors, GroupError, Select, TextArea, TextField } from "../ui";
import { type ExpectationValues, formRows, type TestValues } from "./form";

export interface TestFieldsProps {
  values: TestValues;
  errors: FieldErrors;
  /** The tools a run offers the agent (expectationTools): what an expectation may name. */
  tools: string[];
  /** Chat models the provider lists, offered for the judge (any other name is taken too). */
  models: string[];
}

/** A text area tall enough for what it holds (indented JSON), within reason. */
const rowsFor = (text: string, least: number) => Math.min(12, Math.max(least, text.split("\n").length));

const ExpectationRow: FC<{ row: ExpectationValues; index: number; tools: string[]; errors: FieldErrors }> = ({
  row,
  index,
  tools,
  errors,
}) => {
  const n = index + 1;
  const known = row.tool === "" || tools.includes(row.tool);
  return (
    <div class="expectation" data-expectation={String(index)}>
      <Select
        name={`expectTool.${index}`}
        label={`Tool ${n}`}
        value={row.tool}
        errors={errors}
        options={[
          { value: "", label: "(none)" },
          ...tools.map((t) => ({ value: t, label: t })),
          ...(known ? [] : [{ value: row.tool, label: `${row.tool} (not a tool of the agent now)` }]),
        ]}
      />
      <Select
        name={`expectCalled.${index}`}
        label={`Tool ${n} is`}
        value={row.called}
        errors={errors}
        options={[
          { value: "yes", label: "called" },
          { value: "no", label: "never called" },
        ]}
      />
      <TextArea
        name={`expectArguments.${index}`}
        label={`Tool ${n} arguments (JSON object, optional)`}
        value={row.arguments}
        errors={errors}
        rows={rowsFor(row.arguments, 2)}
      />
    </div>
  );
};

export const TestFields: FC<TestFieldsProps> = ({ values, errors, tools, models }) => (
  <>
    <TextField name="name" label="Test name" value={values.name} errors={errors} required />
    <fieldset class="test-part">
      <legend>Scenario</legend>
      <label class="check" for="f-kind-script">
        <input type="radio" id="f-kind-script" name="kind" value="script" checked={values.kind === "script"} />
        Script: the caller's messages, one per line
      </label>
      <label class="check" for="f-kind-simulated">
        <input type="radio" id="f-kind-simulated" name="kind" value="simulated" checked={values.kind === "simulated"} />
        Simulated caller: a persona with a goal
      </label>
      <TextArea name="turns" label="Script turns (one per line)" value={values.turns} errors={errors} rows={3} />
      <TextField name="persona" label="Persona" value={values.persona} errors={errors} hint="Who the caller is and how they speak." />
      <TextField name="goal" label="Goal" value={values.goal} errors={errors} hint="What the caller wants; they stop once it is reached." />
      <TextField
        name="firstMessage"
        label="Caller's first message (optional)"
        value={values.firstMessage}
        errors={errors}
        hint="Said as written; empty: the simulated caller chooses."
      />
      <TextField name="maxTurns" label="Max turns" type="number" value={values.maxTurns} errors={errors} />
    </fieldset>
    <fieldset class="test-part">
      <legend>Judged on</legend>
      <TextArea
        name="criteria"
        label="Success criteria (one per line)"
        value={values.criteria}
        errors={errors}
        rows={3}
        hint='Each is judged from the transcript, e.g. The agent says "order 7".'
      />
      <TextArea
        name="extractionFields"
        label="Extraction fields (JSON array, optional)"
        value={values.extractionFields}
        errors={errors}
        rows={rowsFor(values.extractionFields, 3)}
        hint='Values the judge reads out of the conversation, as in an analysis plan, e.g. [{"name":"order_id","type":"string","description":"The order asked about"}]'
      />
    </fieldset>
    <fieldset class="test-part" id="f-expectations">
      <legend>Tool expectations</legend>
      <p class="hint">
        A tool called passes when one of its calls has every argument named: equal as JSON, or {'{"contains": "…"}'} for text that must
        contain it. Never called: the test fails if the agent calls it. A row with no tool is left out.
      </p>
      {tools.length === 0 ? <p class="muted small">The agent has no tools yet: add some on its page to expect them here.</p> : null}
      {formRows(values).map((row, index) => (
        <ExpectationRow row={row} index={index} tools={tools} errors={errors} />
      ))}
      <GroupError name="expectations" errors={errors} />
    </fieldset>
    <TextField
      name="judgeModel"
      label="Judge model (optional)"
      value={values.judgeModel}
      errors={errors}
      list={models}
      hint="Plays the simulated caller and judges the conversation; empty: the platform's default chat model."
    />
  </>
);
