/** @jsxImportSource hono/jsx */
// What an agent's Tests pages share: the Tests page (drawn for a GET, and again with a refused new
// test), read through the agent-tests service the API calls (src/agent-tests/service.ts) and the
// agent's versions (src/agents/versions.ts).
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { MAX_TESTS_PER_AGENT } from "../../../agent-tests/schema";
import { listTests, newestRuns } from "../../../agent-tests/service";
import { listAgentVersions } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import { EMPTY_TEST, type TestValues } from "../../../dashboard/agent-tests/form";
import { matrixOf } from "../../../dashboard/agent-tests/format";
import { TestsPage } from "../../../dashboard/agent-tests/list";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";

/** Versions the picker offers: the newest, which include the live one in all but rare histories (then added). */
const VERSIONS_SHOWN = 50;

/** The agent's tests (all of them: an agent has at most MAX_TESTS_PER_AGENT) and the matrix of their newest runs. */
export async function testsAndMatrix(c: Context<AppEnv>, agentId: string) {
  const ctx = c.var.ctx;
  const [tests, runs] = await Promise.all([
    listTests({ ctx, input: { agentId, limit: MAX_TESTS_PER_AGENT } }),
    newestRuns({ ctx, input: { agentId } }),
  ]);
  // Oldest first, the order Run all queues them in.
  return { tests: [...tests.data].reverse(), matrix: matrixOf(runs) };
}

export async function renderTests(
  c: Context<AppEnv>,
  agentId: string,
  form: { values: TestValues; errors: FieldErrors } = { values: EMPTY_TEST, errors: {} },
  status: ContentfulStatusCode = 200,
  notice?: { kind: "ok" | "error"; text: string },
) {
  // First alone: another workspace's agent is the 404 page before anything else is read.
  const { agent, page } = await listAgentVersions({ ctx: c.var.ctx, input: { agentId, limit: VERSIONS_SHOWN } });
  const [shell, { tests, matrix }] = await Promise.all([shellOf(c, `Tests: ${agent.name}`, "agents"), testsAndMatrix(c, agentId)]);
  const versions = page.data.some((v) => v.version === agent.liveVersion)
    ? page.data
    : [...page.data, { version: agent.liveVersion } as (typeof page.data)[number]];
  return c.html(
    <TestsPage
      shell={shell}
      agent={agent}
      tests={tests}
      matrix={matrix}
      versions={versions}
      values={form.values}
      errors={form.errors}
      notice={notice}
    />,
    status,
  );
}
