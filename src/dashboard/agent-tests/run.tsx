/** @jsxImportSource hono/jsx */
// A test run's page, and a replay's: its status, the version it played, how (a chat, or a voice
// call with a link to the call), (a replay's turns side by side with the recorded ones:
// ./replay.tsx), each criterion and tool expectation with the judge's verdict and reason, the data
// extracted, the tools called, the agent's latency, the cost, the error and the transcript
// (docs/agent-tests.md, "A run", "Replay"). While it is queued or running, the page's script
// (widget/src/test-run-page.ts) follows its status and draws the page again once it is final.
import type { FC } from "hono/jsx";
import type { TestRunView } from "../../agent-tests/schema";
import type { Agent } from "../../agents/service";
import { formatCredits } from "../../lib/credits";
import { Badge, DataTable, InlineScript, Layout, type Shell, When } from "../ui";
import { AGENTS_CSS, TEST_RUN_PAGE_JS } from "../ui/assets/built";
import { isActive, STATUS_TONES, versionLabel } from "./format";
import { ReplayOf, ReplayTurns } from "./replay";

const ROLES = { agent: "Agent", user: "Caller", tool: "Tool" } as const;

const Verdict: FC<{ passed: boolean }> = ({ passed }) => <Badge tone={passed ? "good" : "bad"}>{passed ? "passed" : "failed"}</Badge>;

const json = (value: unknown) => JSON.stringify(value ?? null);

const MODES = { chat: "Chat (text)", voice: "Voice call", replay: "Replay" } as const;

/** A chat's wait per reply, or a voice call's voice to voice. */
function latencyText(run: TestRunView): string {
  const l = run.latency;
  if (!l) return "—";
  const ms = (v: number | null) => (v === null ? "—" : `${v} ms`);
  if (run.mode === "voice")
    return `${l.turns} replies, voice to voice ${ms(l.p50Ms)} at p50, ${ms(l.p95Ms)} at p95, ${ms(l.maxMs)} at most`;
  return `${l.turns} replies, ${ms(l.averageMs)} on average, ${ms(l.maxMs)} at most`;
}

const Judged: FC<{ run: TestRunView }> = ({ run }) => {
  const results = run.results;
  if (!results) return <p class="muted">Not judged{run.status === "queued" || run.status === "running" ? " yet" : ""}.</p>;
  const data = Object.entries(results.extractedData);
  return (
    <>
      <DataTable
        stack
        rows={results.criteria}
        empty={<p class="muted">No success criteria.</p>}
        columns={[
          { header: "Criterion", cell: (r) => r.criterion, label: "Criterion" },
          { header: "Result", cell: (r) => <Verdict passed={r.passed} />, label: "Result" },
          { header: "Judge's reason", cell: (r) => r.reason, class: "small", label: "Judge's reason" },
        ]}
      />
      {results.toolExpectations.length > 0 ? (
        <DataTable
          stack
          rows={results.toolExpectations}
          columns={[
            { header: "Tool expectation", cell: (r) => <span class="mono">{r.tool}</span>, label: "Tool expectation" },
            { header: "Result", cell: (r) => <Verdict passed={r.passed} />, label: "Result" },
            { header: "Why", cell: (r) => r.reason, class: "small", label: "Why" },
          ]}
        />
      ) : null}
      {data.length > 0 ? (
        <dl>
          {data.map(([name, value]) => (
            <>
              <dt class="mono">{name}</dt>
              <dd class="mono">{json(value)}</dd>
            </>
          ))}
        </dl>
      ) : null}
    </>
  );
};

export const RunPage: FC<{ shell: Shell; agent: Agent; run: TestRunView }> = ({ shell, agent, run }) => (
  <Layout
    shell={shell}
    css={AGENTS_CSS}
    actions={
      <a class="button secondary" href={`/dashboard/agents/${agent.id}/tests`}>
        All tests
      </a>
    }
  >
    <div class="test-run" data-test-run={run.id} data-agent={agent.id} data-active={isActive(run.status) ? "1" : ""}>
      <section class="card" aria-labelledby="run-heading">
        <h2 id="run-heading" class="mt0">
          {run.replay ? "Replay" : (run.testName ?? "A deleted test")}
        </h2>
        <dl>
          <ReplayOf run={run} />
          <dt>Status</dt>
          <dd data-run-status={run.status}>
            <Badge tone={STATUS_TONES[run.status]}>{run.status}</Badge>
            {isActive(run.status) ? <span class="muted small"> (followed here until it ends)</span> : null}
          </dd>
          <dt>Version</dt>
          <dd>{versionLabel(run.agentVersion)}</dd>
          <dt>Played as</dt>
          <dd>
            {MODES[run.mode]}
            {run.callId ? (
              <>
                {" "}
                (<a href={`/dashboard/calls/${run.callId}`}>the call</a>)
              </>
            ) : null}
          </dd>
          <dt>Started</dt>
          <dd>
            <When at={run.startedAt} />
          </dd>
          <dt>Finished</dt>
          <dd>
            <When at={run.finishedAt} />
          </dd>
          <dt>Latency</dt>
          <dd>{latencyText(run)}</dd>
          <dt>Cost</dt>
          <dd>{formatCredits(run.costMicro)} credits</dd>
          {run.error ? (
            <>
              <dt>Error</dt>
              <dd data-run-error>{run.error}</dd>
            </>
          ) : null}
        </dl>
      </section>
      <ReplayTurns run={run} />
      <section aria-labelledby="criteria-heading">
        <h2 id="criteria-heading">Criteria</h2>
        <Judged run={run} />
      </section>
      <section aria-labelledby="tools-heading">
        <h2 id="tools-heading">Tools called</h2>
        <DataTable
          stack
          rows={run.toolsCalled}
          empty={<p class="muted">No tool was called.</p>}
          columns={[
            { header: "Tool", cell: (t) => <span class="mono">{t.name}</span>, label: "Tool" },
            { header: "Arguments", cell: (t) => json(t.arguments), class: "mono small", label: "Arguments" },
            { header: "Outcome", cell: (t) => t.outcome, label: "Outcome" },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="transcript-heading">
        <h2 id="transcript-heading" class="mt0">
          Transcript
        </h2>
        {run.transcript.length === 0 ? (
          <p class="muted">Nothing was said.</p>
        ) : (
          <ol class="turns">
            {run.transcript.map((turn) => (
              <li>
                <span class="role">{ROLES[turn.role]}</span>
                {turn.tool ? (
                  <span class="mono small">
                    {turn.tool.name}({json(turn.tool.arguments)}) → {turn.tool.outcome}: {turn.tool.result}
                  </span>
                ) : (
                  turn.text
                )}
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
    <InlineScript nonce={shell.nonce} js={TEST_RUN_PAGE_JS} />
  </Layout>
);
