/** @jsxImportSource hono/jsx */
// An agent's Tests page (docs/dashboard.md, "Agent tests"): its tests (name linking to the test's
// own page, scenario, criteria, last result) with Run and Delete, "Run all" with a version picker
// (the agent's versions, the live one chosen), the results side by side per version (rows the
// tests, columns the versions that have runs, each cell the newest run of that test at that
// version, linking to the run's page), the agent's replays, and a New test form. While a run or a
// replay is queued or running, the script (widget/src/agent-tests-page.ts, AGENT_TESTS_PAGE_JS)
// follows the cells every 2 s; every button is a form that works without it.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { ListedVersion } from "../../agents/versions";
import type { AgentTest, AgentTestRun } from "../../db/schema";
import { versionName } from "../agents/versions";
import { Csrf, DataTable, EmptyState, ErrorSummary, type FieldErrors, Flash, InlineScript, Layout, Select, type Shell } from "../ui";
import { AGENT_TESTS_PAGE_JS, AGENTS_CSS } from "../ui/assets/built";
import { RunCell } from "./cell";
import { TestFields } from "./fields";
import type { TestValues } from "./form";
import { cellKey, criteriaCount, isActive, type Matrix, scenarioText, versionKey, versionLabel } from "./format";
import { ReplayList } from "./replay";

export interface TestsPageProps {
  shell: Shell;
  agent: Agent;
  tests: AgentTest[];
  matrix: Matrix;
  versions: ListedVersion[];
  values: TestValues;
  errors: FieldErrors;
  /** The tools an expectation may name, and the judge models offered (the New test form). */
  tools: string[];
  models: string[];
  /** The newest replays of the agent, and the link to older ones. */
  replays: AgentTestRun[];
  olderReplaysHref: string | null;
  notice?: { kind: "ok" | "error"; text: string };
}

const base = (agent: Agent) => `/dashboard/agents/${agent.id}`;

const RunAll: FC<{ agent: Agent; versions: ListedVersion[]; csrf: string; disabled: boolean }> = ({ agent, versions, csrf, disabled }) => (
  <form id="run-tests" method="post" action={`${base(agent)}/tests/run`} class="card">
    <Csrf token={csrf} />
    <Select
      name="version"
      label="Version to run against"
      value={String(agent.liveVersion)}
      options={versions.map((v) => ({
        value: String(v.version),
        label: versionName(agent, v.version),
      }))}
      hint="Run all, and each test's Run, play against this version."
    />
    <Select
      name="mode"
      label="Play as"
      value="chat"
      options={[
        { value: "chat", label: "A chat (text only, fast)" },
        { value: "voice", label: "A voice call (spoken through the whole pipeline, with its latency)" },
      ]}
      hint="A voice run places a web call: it counts against calls in flight and is metered like one."
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
        {
          header: "Name",
          cell: (t) => <a href={`${base(agent)}/tests/${t.id}`}>{t.name}</a>,
          label: "Name",
        },
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
                label={`${t.name}, ${last ? versionLabel(last.agentVersion) : ""}`}
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
                  label={`${t.name}, ${versionLabel(version)}`}
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

const NewTest: FC<{ agent: Agent; values: TestValues; errors: FieldErrors; csrf: string; tools: string[]; models: string[] }> = ({
  agent,
  values,
  errors,
  csrf,
  tools,
  models,
}) => (
  <form method="post" action={`${base(agent)}/tests`} class="card" id="new-test" novalidate>
    <h2 class="mt0">New test</h2>
    <Csrf token={csrf} />
    <TestFields values={values} errors={errors} tools={tools} models={models} />
    <p>
      <button type="submit">Create test</button>
    </p>
  </form>
);

export const TestsPage: FC<TestsPageProps> = ({
  shell,
  agent,
  tests,
  matrix,
  versions,
  values,
  errors,
  tools,
  models,
  replays,
  olderReplaysHref,
  notice,
}) => (
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
    <div data-agent-tests-page data-agent={agent.id} data-active={matrix.active || replays.some((r) => isActive(r.status)) ? "1" : ""}>
      <RunAll agent={agent} versions={versions} csrf={shell.csrf} disabled={tests.length === 0} />
      <TestList agent={agent} tests={tests} matrix={matrix} csrf={shell.csrf} />
      <Results agent={agent} tests={tests} matrix={matrix} />
      <ReplayList agent={agent} replays={replays} olderHref={olderReplaysHref} />
    </div>
    <NewTest agent={agent} values={values} errors={errors} csrf={shell.csrf} tools={tools} models={models} />
    <InlineScript nonce={shell.nonce} js={AGENT_TESTS_PAGE_JS} />
  </Layout>
);
