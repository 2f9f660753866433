/** @jsxImportSource hono/jsx */
// A call's page: status and ended reason (in words), its and its agent's ids to copy, who and when,
// cost and latency, Hang up while it runs, the recording player, the transcript turns at their
// times (a click plays the recording from there; each reply's latency waterfall: ./transcript.tsx),
// "Replay against a version" once it has ended (../agent-tests/replay-form.tsx), the analysis and
// report with labelled parts, and the webhook deliveries of that call. A call in progress is
// followed live: the page's script (CALL_PAGE_JS) polls its status and transcript.
import type { FC } from "hono/jsx";
import type { CallView } from "../../calls/mapper";
import { ENDED_REASONS } from "../../calls/states";
import type { Call } from "../../db/schema";
import type { SubjectDelivery } from "../../webhooks/log";
import { type ReplayChoices, ReplayForm } from "../agent-tests/replay-form";
import { Csrf, DataTable, EmptyState, Flash, Layout, type Shell, When } from "../ui";
import { CALL_PAGE_JS, CALLS_CSS } from "../ui/assets/built";
import { InlineScript } from "../ui/layout";
import { CallStatusBadge } from "./list";
import { Transcript } from "./transcript";

/** An id, with a button that copies it. */
const Id: FC<{ label: string; id: string; value: string }> = ({ label, id, value }) => (
  <p class="row">
    <strong>{label}</strong>{" "}
    <code id={id} class="mono">
      {value}
    </code>
    <button type="button" class="secondary small-button" data-copy={id} aria-label={`Copy the ${label.toLowerCase()}`}>
      Copy
    </button>
  </p>
);

const Facts: FC<{ call: Call; v: CallView }> = ({ call, v }) => (
  <div class="card">
    <div class="grid2">
      <p>
        <strong>Status</strong>{" "}
        <span data-live-status>
          <CallStatusBadge status={call.status} />
        </span>
      </p>
      <p>
        <strong>Ended</strong>{" "}
        {call.endedReason ? (
          <>
            {ENDED_REASONS[call.endedReason].description}{" "}
            <span class="muted small">
              (<code>{call.endedReason}</code>, {v.endedReasonCategory})
            </span>
          </>
        ) : (
          <span class="muted">not yet</span>
        )}
      </p>
      <Id label="Call id" id="call-id" value={call.id} />
      {call.agentId ? <Id label="Agent id" id="agent-id" value={call.agentId} /> : <p />}
      <p>
        <strong>Agent</strong> {call.agentId ? <a href={`/dashboard/agents/${call.agentId}`}>{call.agentName}</a> : call.agentName}
        {call.agentVersion ? <span class="muted"> (version {call.agentVersion})</span> : null}
      </p>
      <p>
        <strong>Type</strong> {call.type}, {call.direction}
      </p>
      <p>
        <strong>From → to</strong> <span class="mono">{call.fromNumber ?? "browser"}</span> →{" "}
        <span class="mono">{call.toNumber ?? "agent"}</span>
      </p>
      <p>
        <strong>Started</strong> <When at={call.startedAt} /> · <strong>Ended</strong> <When at={call.endedAt} />
      </p>
      <p>
        <strong>Duration</strong> {v.durationSeconds !== null ? `${v.durationSeconds} s` : "—"}
      </p>
      <p>
        <strong>Cost</strong> {v.cost.credits} credits (STT {v.cost.stt.quantity} s, LLM {v.cost.llm.quantity} tokens, TTS{" "}
        {v.cost.tts.quantity} characters{v.cost.knowledge.quantity > 0 ? `, knowledge ${v.cost.knowledge.quantity} tokens` : ""})
      </p>
      {v.toolCallCount > 0 || v.transfer ? (
        <p>
          <strong>Tool calls</strong> {v.toolCallCount}
          {v.transfer ? (
            <>
              {" "}
              · <strong>Transferred to</strong> <span class="mono">{v.transfer.number}</span>
              {v.transfer.name ? ` (${v.transfer.name})` : ""}
            </>
          ) : null}
        </p>
      ) : null}
      <p>
        <strong>Latency</strong>{" "}
        {v.latency
          ? `voice-to-voice p50 ${v.latency.voiceToVoiceMsP50} ms, of which platform ${v.latency.platformMsP50} ms (${v.latency.turns} replies)`
          : "—"}
      </p>
    </div>
  </div>
);

const Recording: FC<{ call: Call; live: boolean }> = ({ call, live }) =>
  call.recordingKey ? (
    <div class="card">
      {/* biome-ignore lint/a11y/useMediaCaption: the transcript below is the recording's text alternative */}
      <audio controls preload="none" src={`/dashboard/calls/${call.id}/recording`} aria-label="Call recording (left: caller, right: agent)">
        <a href={`/dashboard/calls/${call.id}/recording`}>Download the recording</a>
      </audio>
      <p class="hint">Stereo: the caller on the left, the agent on the right.</p>
    </div>
  ) : (
    <p class="muted">No recording{live ? " yet" : ""}.</p>
  );

/** Why an ended call has no analysis (docs/calls.md, "Analysis"). */
const SKIPPED = {
  "not-connected": "No analysis: the call never connected.",
  "no-caller-speech": "No analysis: the caller said nothing.",
} as const;

/** An extracted value as text: strings as they are, anything else as JSON; "—" for none. */
const shown = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v));

const Analysis: FC<{ call: Call; v: CallView; live: boolean }> = ({ call, v, live }) => (
  <div class="card">
    {call.analysis ? (
      <>
        <h3 class="mt0">Summary</h3>
        <p>{call.analysis.summary}</p>
        <p>
          <strong>Sentiment</strong> {call.analysis.sentiment} · <strong>Topics</strong> {call.analysis.topics.join(", ") || "—"}
        </p>
        {call.analysis.actionItems.length ? (
          <>
            <h3>Action items</h3>
            <ul>
              {call.analysis.actionItems.map((a) => (
                <li>{a}</li>
              ))}
            </ul>
          </>
        ) : null}
      </>
    ) : (
      <p class="muted">
        {call.analysisError ?? (v.analysisSkipped ? SKIPPED[v.analysisSkipped] : live ? "After the call." : "Not analysed yet.")}
      </p>
    )}
    {call.report ? (
      <>
        <h3>Success criteria</h3>
        <p>
          <strong>Score</strong> {Math.round(call.report.successScore * 100)}%
          {call.report.criteriaResults.length
            ? ` (${call.report.criteriaResults.filter((r) => r.passed).length} of ${call.report.criteriaResults.length} met)`
            : ""}
        </p>
        {call.report.criteriaResults.length ? (
          <ul class="plain-list">
            {call.report.criteriaResults.map((r) => (
              <li>
                <span aria-hidden="true">{r.passed ? "✔" : "✘"}</span> <span class="sr">{r.passed ? "Met:" : "Not met:"}</span>{" "}
                {r.criterion} <span class="muted small">{r.reason}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted small">The agent has no success criteria.</p>
        )}
        <h3>Extracted data</h3>
        {Object.keys(call.report.extractedData).length ? (
          <dl class="extracted">
            {Object.entries(call.report.extractedData)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, value]) => (
                <>
                  <dt class="mono">{k}</dt>
                  <dd>{shown(value)}</dd>
                </>
              ))}
          </dl>
        ) : (
          <p class="muted small">The agent extracts no fields.</p>
        )}
      </>
    ) : null}
  </div>
);

/** Ends the call through the API's own operation (POST /dashboard/calls/:id/hang-up): hangs up, or cancels one still ringing. */
const HangUp: FC<{ call: Call; csrf: string }> = ({ call, csrf }) => (
  <form
    method="post"
    action={`/dashboard/calls/${call.id}/hang-up`}
    data-confirm={
      call.status === "in-progress"
        ? "Hang up this call? The caller is cut off at once."
        : "Cancel this call? It stops ringing and is not connected."
    }
  >
    <Csrf token={csrf} />
    <button type="submit" class="danger">
      Hang up
    </button>
  </form>
);

/** A flash after an action on the call (Hang up). */
export interface CallNotice {
  kind: "ok" | "error";
  text: string;
}

export interface CallPageProps {
  shell: Shell;
  call: Call;
  v: CallView;
  live: boolean;
  deliveries: SubjectDelivery[];
  notice?: CallNotice;
  /** "Replay against a version" (an ended call of an agent that still exists, with a caller turn); null: none. */
  replay?: ReplayChoices | null;
}

export const CallPage: FC<CallPageProps> = ({ shell, call, v, live, deliveries, notice, replay }) => (
  <Layout shell={shell} css={CALLS_CSS}>
    {notice ? <Flash kind={notice.kind}>{notice.text}</Flash> : null}
    {live ? (
      <div data-live-call={call.id}>
        <Flash kind="warn">
          This call is <span data-live-state>{call.status}</span>: its status and transcript follow it here.
        </Flash>
      </div>
    ) : null}
    {live ? <HangUp call={call} csrf={shell.csrf} /> : null}
    <Facts call={call} v={v} />
    <h2>Recording</h2>
    <Recording call={call} live={live} />
    <h2>Transcript</h2>
    <Transcript transcript={v.transcript} latency={v.latency} startedAt={call.startedAt} playable={Boolean(call.recordingKey)} />
    {replay ? <ReplayForm action={`/dashboard/calls/${call.id}/replay`} what="call" choices={replay} csrf={shell.csrf} /> : null}
    <h2>Analysis</h2>
    <Analysis call={call} v={v} live={live} />
    <h2>Webhook deliveries of this call</h2>
    <DataTable
      rows={deliveries}
      empty={<EmptyState muted>None (no endpoint subscribes to voice events, or none fired yet).</EmptyState>}
      columns={[
        { header: "Event", class: "mono", cell: (d) => d.event },
        {
          header: "Endpoint",
          cell: (d) => (shell.role === "admin" ? <a href={`/dashboard/webhooks/${d.endpointId}`}>{d.endpointName}</a> : d.endpointName),
        },
        { header: "Status", cell: (d) => d.status },
        { header: "Attempts", cell: (d) => d.attempts },
        { header: "Created", cell: (d) => <When at={d.createdAt} /> },
      ]}
    />
    <InlineScript nonce={shell.nonce} js={CALL_PAGE_JS} />
  </Layout>
);
