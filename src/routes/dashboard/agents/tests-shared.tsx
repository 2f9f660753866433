/** @jsxImportSource hono/jsx */
// What an agent's Tests pages share: the Tests page (drawn for a GET, and again with a refused new
// test), a test's own page (drawn for a GET and again with a refused save), and what their forms
// offer; read through the agent-tests service the API calls (src/agent-tests/service.ts) and the
// agent's versions (src/agents/versions.ts).
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { expectationTools } from "../../../agent-tests/expectations";
import { MAX_TESTS_PER_AGENT } from "../../../agent-tests/schema";
import { getTest, listRuns, listTests, newestRuns } from "../../../agent-tests/service";
import { type Agent, getAgent, llmModelChoices } from "../../../agents/service";
import { agentAtVersion, listAgentVersions } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import { EditTestPage } from "../../../dashboard/agent-tests/edit";
import { EMPTY_TEST, type TestValues, valuesOfTest } from "../../../dashboard/agent-tests/form";
import { matrixOf, replayCellOf } from "../../../dashboard/agent-tests/format";
import { TestsPage } from "../../../dashboard/agent-tests/list";
import { type FieldErrors, shellOf } from "../../../dashboard/ui";

/** Versions the picker offers: the newest, which include the live one in all but rare histories (then added). */
const VERSIONS_SHOWN = 50;
/** Replays the Tests page lists at once ("Older replays" pages on). */
export const REPLAYS_SHOWN = 20;

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

/** A page of the agent's replays, newest first (`cursor`: the page after the one it ended). */
export async function replaysOf(c: Context<AppEnv>, agentId: string, cursor?: string) {
  const page = await listRuns({ ctx: c.var.ctx, input: { agentId, mode: "replay", limit: REPLAYS_SHOWN, cursor } });
  return { replays: page.data.map((r) => r.run), nextCursor: page.nextCursor };
}

export const replayCells = (replays: Awaited<ReturnType<typeof replaysOf>>["replays"]) => replays.map(replayCellOf);

/**
 * What a test's form offers: the tools a run offers the agent, live or in its newest draft (a
 * draft is what one tests before publishing), and the chat models for the judge.
 */
async function formChoices(c: Context<AppEnv>, agent: Agent) {
  const ctx = c.var.ctx;
  const [draft, models] = await Promise.all([
    agent.latestVersion > agent.liveVersion ? agentAtVersion({ ctx, input: { agentId: agent.id, version: agent.latestVersion } }) : null,
    llmModelChoices({ ctx }),
  ]);
  const tools = [...new Set([...expectationTools(agent), ...(draft ? expectationTools(draft) : [])])];
  return { tools, models };
}

/** `?replays=<cursor>` pages the replays on; a cursor that is not one is a 400 (the service says so). */
export async function renderTests(
  c: Context<AppEnv>,
  agentId: string,
  form: { values: TestValues; errors: FieldErrors } = { values: EMPTY_TEST, errors: {} },
  status: ContentfulStatusCode = 200,
  notice?: { kind: "ok" | "error"; text: string },
) {
  // First alone: another workspace's agent is the 404 page before anything else is read.
  const { agent, page } = await listAgentVersions({ ctx: c.var.ctx, input: { agentId, limit: VERSIONS_SHOWN } });
  const cursor = c.req.query("replays") || undefined;
  const [shell, { tests, matrix }, replays, choices] = await Promise.all([
    shellOf(c, `Tests: ${agent.name}`, "agents"),
    testsAndMatrix(c, agentId),
    replaysOf(c, agentId, cursor),
    formChoices(c, agent),
  ]);
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
      tools={choices.tools}
      models={choices.models}
      replays={replays.replays}
      olderReplaysHref={
        replays.nextCursor
          ? `/dashboard/agents/${agentId}/tests?${new URLSearchParams({ replays: replays.nextCursor })}#replays-heading`
          : null
      }
      notice={notice}
    />,
    status,
  );
}

/** A test's own page: the test as saved, or (`form`) as typed with its problems. */
export async function renderTestEdit(
  c: Context<AppEnv>,
  agentId: string,
  testId: string,
  form?: { values: TestValues; errors: FieldErrors },
  status: ContentfulStatusCode = 200,
  notice?: string,
) {
  const ctx = c.var.ctx;
  // The test first: another workspace's agent or test is the 404 page (getTest checks the agent too).
  const test = await getTest({ ctx, input: { agentId, id: testId } });
  const agent = await getAgent({ ctx, input: { id: agentId } });
  const [shell, choices] = await Promise.all([shellOf(c, `Test: ${test.name}`, "agents"), formChoices(c, agent)]);
  return c.html(
    <EditTestPage
      shell={shell}
      agent={agent}
      test={test}
      values={form?.values ?? valuesOfTest(test)}
      errors={form?.errors ?? {}}
      tools={choices.tools}
      models={choices.models}
      notice={notice}
    />,
    status,
  );
}
