/** @jsxImportSource hono/jsx */
// A test's own page (docs/dashboard.md, "Agent tests"): every field of the test (./fields.tsx),
// saved through the API's updateTest, and Delete after a confirmation. A refused save draws the
// page again with what was typed and each problem on its field.
import type { FC } from "hono/jsx";
import type { Agent } from "../../agents/service";
import type { AgentTest } from "../../db/schema";
import { Csrf, ErrorSummary, type FieldErrors, Flash, Layout, type Shell } from "../ui";
import { AGENTS_CSS } from "../ui/assets/built";
import { TestFields } from "./fields";
import type { TestValues } from "./form";

export interface EditTestPageProps {
  shell: Shell;
  agent: Agent;
  test: AgentTest;
  values: TestValues;
  errors: FieldErrors;
  tools: string[];
  models: string[];
  notice?: string;
}

export const EditTestPage: FC<EditTestPageProps> = ({ shell, agent, test, values, errors, tools, models, notice }) => {
  const tests = `/dashboard/agents/${agent.id}/tests`;
  return (
    <Layout
      shell={shell}
      css={AGENTS_CSS}
      actions={
        <a class="button secondary" href={tests}>
          All tests
        </a>
      }
    >
      {notice ? <Flash kind="ok">{notice}</Flash> : null}
      <ErrorSummary errors={errors} />
      <p class="muted small mt0">
        A test of <a href={`/dashboard/agents/${agent.id}`}>{agent.name}</a>. Saving changes what its next runs play and judge; earlier runs
        keep their results.
      </p>
      <form method="post" action={`${tests}/${test.id}`} class="card" id="edit-test" novalidate>
        <Csrf token={shell.csrf} />
        <TestFields values={values} errors={errors} tools={tools} models={models} />
        <p>
          <button type="submit">Save test</button>
        </p>
      </form>
      <form method="post" action={`${tests}/${test.id}/delete`} data-confirm={`Delete the test "${test.name}" and its runs?`}>
        <Csrf token={shell.csrf} />
        <button type="submit" class="danger">
          Delete test
        </button>
      </form>
    </Layout>
  );
};
