/** @jsxImportSource hono/jsx */
// Replays in the dashboard (docs/agent-tests.md, "Replay"): the Tests page's list of the agent's
// replays, and on a replay's page the turns side by side: what the caller said, what the agent
// answered then (recorded) and now (replayed), the turns whose replies differ highlighted.
import type { FC } from "hono/jsx";
import type { TestRunView } from "../../agent-tests/schema";
import type { Agent } from "../../agents/service";
import type { AgentTestRun } from "../../db/schema";
import { Badge, DataTable, When } from "../ui";
import { RunCell, runHref } from "./cell";
import { differText, replayCellOf, versionLabel } from "./format";

export const sourceHref = (source: { kind: "call" | "chat"; id: string }) =>
  `/dashboard/${source.kind === "call" ? "calls" : "chats"}/${source.id}`;

const SOURCE = { call: "a call", chat: "a chat" } as const;

/** The Tests page's replays: newest first, each linking to its page (and to the call or chat replayed). */
export const ReplayList: FC<{ agent: Agent; replays: AgentTestRun[]; olderHref: string | null }> = ({ agent, replays, olderHref }) => (
  <section aria-labelledby="replays-heading">
    <h2 id="replays-heading">Replays</h2>
    <DataTable
      stack
      rows={replays}
      empty={
        <p class="muted">
          No replays yet: open a call or a chat of this agent and choose "Replay against a version" to replay its caller's side.
        </p>
      }
      columns={[
        {
          header: "Replayed",
          label: "Replayed",
          cell: (r) => (
            <a href={runHref(agent, r.id)}>
              <When at={r.createdAt} />
            </a>
          ),
        },
        {
          header: "Of",
          label: "Of",
          cell: (r) => (r.source ? <a href={sourceHref(r.source)}>{SOURCE[r.source.kind]}</a> : "—"),
        },
        { header: "Version", label: "Version", cell: (r) => versionLabel(r.agentVersion) },
        {
          header: "Turns",
          label: "Turns",
          class: "small",
          cell: (r) => differText(r.turns) ?? <span class="muted">not played yet</span>,
        },
        {
          header: "Criteria",
          label: "Criteria",
          cell: (r) => <RunCell agent={agent} cell={replayCellOf(r)} label="replay" cellId={`replay:${r.id}`} />,
        },
      ]}
    />
    {olderHref ? (
      <p>
        <a href={olderHref}>Older replays</a>
      </p>
    ) : null}
  </section>
);

type Turn = NonNullable<NonNullable<TestRunView["replay"]>["turns"]>[number];

/** A replay's turns side by side, the differing ones highlighted (and said, not only coloured). */
export const ReplayTurns: FC<{ run: TestRunView }> = ({ run }) => {
  const replay = run.replay;
  if (!replay) return null;
  const summary = differText(replay.turns);
  return (
    <section aria-labelledby="turns-heading" class="replay">
      <h2 id="turns-heading">Turn by turn</h2>
      {replay.turns ? (
        <>
          <p data-replay-summary>
            <strong>{summary}</strong>
            {replay.differingTurns ? " (highlighted)" : ": every reply is the same as the recorded one"}. Replies are compared ignoring case
            and runs of white space.
          </p>
          <DataTable
            stack
            rows={replay.turns}
            rowClass={(t: Turn) => (t.differs ? "differs" : undefined)}
            columns={[
              {
                header: "Turn",
                label: "Turn",
                cell: (t) => (
                  <>
                    {t.index + 1}
                    {t.differs ? (
                      <>
                        {" "}
                        <Badge tone="bad">differs</Badge>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: "Caller said", label: "Caller said", cell: (t) => t.caller },
              { header: "Recorded reply", label: "Recorded reply", cell: (t) => t.recorded || <span class="muted">(no reply)</span> },
              {
                header: `Replayed reply (${versionLabel(run.agentVersion).toLowerCase()})`,
                label: "Replayed reply",
                cell: (t) => t.replayed ?? <span class="muted">(not reached: the replay ended before this turn)</span>,
              },
            ]}
          />
        </>
      ) : (
        <p class="muted" data-replay-summary>
          The replay is {run.status}: the turns appear here once it has played.
        </p>
      )}
    </section>
  );
};

/** The replay's facts above its turns: what was replayed, against which version. */
export const ReplayOf: FC<{ run: TestRunView }> = ({ run }) =>
  run.replay ? (
    <>
      <dt>Replay of</dt>
      <dd>
        <a href={sourceHref(run.replay.source)}>{SOURCE[run.replay.source.kind]}</a>
      </dd>
    </>
  ) : null;
