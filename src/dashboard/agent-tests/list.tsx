/** @jsxImportSource hono/jsx */
// An agent's Tests page (docs/dashboard.md, "Agent tests"): its tests (name, scenario, criteria,
// last result) with Run and Delete, "Run all" with a version picker (the agent's versions, the live
// one chosen), a New test form, and the results side by side per version: rows the tests, columns
// the versions that have runs, each cell the newest run of that test at that version, linking to
// the run's page. While a run is queued or running, the script (widget/src/agent-tests-page.ts,
// AGENT_TESTS_PAGE_JS) follows the cells every 2 s; every button is a form that works without it.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import type { AgentTest } from "../../db/schema";
import {
  Badge,
  Csrf,
  DataTable,
  EmptyState,
  ErrorSummary,
  type FieldErrors,
  Flash,
  InlineScript,
  Layout,
  Select,
  type Shell,
  TextArea,
  TextField,
} from "../ui";
import { AGENT_TESTS_PAGE_JS, AGENTS_CSS } from "../ui/assets/built";
import type { TestValues } from "./form";
import { type Cell, cellKey, criteriaCount, type Matrix, scenarioText, versionKey, versionLabel } from "./format";

export interface TestsPageProps {
  shell: Shell;
  agent: Agent;
  tests: AgentTest[];
  matrix: Matrix;
  versions: ListedVersion[];
  values: TestValues;
  errors: FieldErrors;
  notice?: { kind: "ok" | "error"; text: string };
}

const base = (agent: Agent) => `/dashboard/agents/${agent.id}`;

/** A run's status, linking to its page; `data-cell` lets the script redraw it. */
const RunCell: FC<{ agent: Agent; cell: Cell | undefined; testName: string; label: string; cellId: string }> = ({
  agent,
  cell,
  testName,
  label,
  cellId,
}) => (
  <span data-cell={cellId} data-status={cell?.status ?? ""}>
    {cell ? (
      <a href={`${base(agent)}/test-runs/${cell.runId}`}>
        <Badge tone={cell.tone}>{cell.status}</Badge>
        <span class="sr">
          {" "}
          ({testName}, {label})
        </span>
      </a>
    ) : (
      <span class="muted">—</span>
    )}
  </span>
);

const RunAll: FC<{ agent: Agent; versions: ListedVersion[]; csrf: string; disabled: boolean }> = ({ agent, versions, csrf, disabled }) => (
  <form id="run-tests" method="post" action={`${base(agent)}/tests/run`} class="card">
    <Csrf token={csrf} />
    <Select
      name="version"
      label="Version to run against"
      value={String(agent.liveVersion)}
      options={versions.map((v) => ({
        value: String(v.version),
        label: `Version ${v.version}${v.version === agent.liveVersion ? " (live)" : v.version > agent.liveVersion ? " (draft)" : ""}`,
      }))}
      hint="Run all, and each test's Run, play against this version."
    />
    <p>
      <button type="submit" disabled={disabled}>
        Run all
      </button>
    </p>
  </form>
);

const TestList: FC<{ agent: Agent; tests: AgentTest[]; matrix: Matrix; csrf: string }> = ({ agent, tests, matrix, csrf }) => (
  <section aria-labelledby="tests-heading">
    <h2 id="tests-heading">Tests</h2>
    <DataTable
      stack
      rows={tests}
      empty={<EmptyState action={{ href: "#new-test", label: "Create the first one" }}>No tests yet.</EmptyState>}
      columns={[
        { header: "Name", cell: (t) => t.name, label: "Name" },
        { header: "Scenario", cell: scenarioText, class: "small", label: "Scenario" },
        { header: "Criteria", cell: (t) => String(criteriaCount(t)), label: "Criteria" },
        {
          header: "Last result",
          label: "Last result",
          cell: (t) => {
            const last = matrix.last.get(t.id);
            return (
              <RunCell
                agent={agent}
                cell={last}
                testName={t.name}
                label={last ? versionLabel(last.agentVersion) : ""}
                cellId={`last:${t.id}`}
              />
            );
          },
        },
        {
          header: "",
          cell: (t) => (
            <div class="row">
              <button type="submit" form="run-tests" formaction={`${base(agent)}/tests/${t.id}/run`} class="secondary small-button">
                Run<span class="sr"> {t.name}</span>
              </button>
              <form method="post" action={`${base(agent)}/tests/${t.id}/delete`} data-confirm={`Delete the test "${t.name}" and its runs?`}>
                <Csrf token={csrf} />
                <button type="submit" class="danger small-button">
                  Delete<span class="sr"> {t.name}</span>
                </button>
              </form>
            </div>
          ),
        },
      ]}
    />
  </section>
);

const Results: FC<{ agent: Agent; tests: AgentTest[]; matrix: Matrix }> = ({ agent, tests, matrix }) => (
  <section aria-labelledby="results-heading">
    <h2 id="results-heading">Results by version</h2>
    {matrix.versions.length === 0 ? (
      <p class="muted">No runs yet: Run all plays every test against the version chosen above.</p>
    ) : (
      <DataTable
        rows={tests}
        caption="The newest run of each test at each version; open a result for its transcript and the judge's reasons."
        columns={[
          { header: "Test", cell: (t) => t.name },
          ...matrix.versions.map((version) => ({
            header: versionLabel(version) + (version === agent.liveVersion ? " (live)" : ""),
            cell: (t: AgentTest) => {
              const key = versionKey(version);
              return (
                <RunCell
                  agent={agent}
                  cell={matrix.cells.get(cellKey(t.id, key))}
                  testName={t.name}
                  label={versionLabel(version)}
                  cellId={cellKey(t.id, key)}
                />
              );
            },
          })),
        ]}
      />
    )}
  </section>
);

const NewTest: FC<{ agent: Agent; values: TestValues; errors: FieldErrors; csrf: string }> = ({ agent, values, errors, csrf }) => (
  <form method="post" action={`${base(agent)}/tests`} class="card" id="new-test" novalidate>
    <h2 class="mt0">New test</h2>
    <Csrf token={csrf} />
    <TextField name="name" label="Test name" value={values.name} errors={errors} required />
    <fieldset>
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
      <TextField name="maxTurns" label="Max turns" type="number" value={values.maxTurns} errors={errors} />
    </fieldset>
    <TextArea
      name="criteria"
      label="Success criteria (one per line)"
      value={values.criteria}
      errors={errors}
      rows={3}
      hint='Each is judged from the transcript, e.g. The agent says "order 7".'
    />
    <p>
      <button type="submit">Create test</button>
    </p>
  </form>
);

export const TestsPage: FC<TestsPageProps> = ({ shell, agent, tests, matrix, versions, values, errors, notice }) => (
  <Layout
    shell={shell}
    css={AGENTS_CSS}
    actions={
      <a class="button secondary" href={base(agent)}>
        Back to the agent
      </a>
    }
  >
    {notice ? <Flash kind={notice.kind}>{notice.text}</Flash> : null}
    <ErrorSummary errors={errors} />
    <div data-agent-tests-page data-agent={agent.id} data-active={matrix.active ? "1" : ""}>
      <RunAll agent={agent} versions={versions} csrf={shell.csrf} disabled={tests.length === 0} />
      <TestList agent={agent} tests={tests} matrix={matrix} csrf={shell.csrf} />
      <Results agent={agent} tests={tests} matrix={matrix} />
    </div>
    <NewTest agent={agent} values={values} errors={errors} csrf={shell.csrf} />
    <InlineScript nonce={shell.nonce} js={AGENT_TESTS_PAGE_JS} />
  </Layout>
);
