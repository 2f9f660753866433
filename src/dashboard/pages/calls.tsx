/** @jsxImportSource hono/jsx */
// Calls: the list with filters, a call's page (transcript turns, recording player, analysis and
// report, cost and latency, the webhook deliveries of that call), and "place a test call".
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { z } from "zod";
import { findAgent, listAgentNames } from "../../agents/service";
import { toCallView } from "../../calls/mapper";
import { placePhoneCall } from "../../calls/place";
import { type CallFilters, deliveriesOfCall, getCallRecording, getCallWithUsage, listCalls } from "../../calls/service";
import { ACTIVE_STATUSES, CALL_STATUSES, type CallStatus } from "../../calls/states";
import { durationOf } from "../../calls/views";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { callCtx } from "../../routes/v1/calls/place";
import { phoneNumber } from "../../routes/v1/calls/schema";
import { one, validate } from "./forms";
import { Csrf, ErrorSummary, type FieldErrors, Flash, Layout, Select, shellOf, TextField, When, when } from "./ui";

/** The telephony sandbox's scripted callees (docs/sandbox.md): offered in the test-call form. */
const SANDBOX_NUMBERS = [
  { value: "+12025550100", label: "+12025550100: a short conversation" },
  { value: "+12025550101", label: "+12025550101: silent callee" },
  { value: "+12025550102", label: "+12025550102: busy" },
  { value: "+12025550103", label: "+12025550103: no answer" },
  { value: "+12025550106", label: "+12025550106: interrupts the agent" },
];

const testCallSchema = z.object({ agentId: z.uuid({ message: "choose an agent" }), phoneNumber: phoneNumber("phoneNumber") });

const statusBadge = (status: string) => (
  <span
    class={`badge ${status === "completed" ? "good" : status === "in-progress" || status === "ringing" || status === "queued" ? "" : "bad"}`}
  >
    {status}
  </span>
);

/** The list's filters as the form sent them; a value the form does not offer filters nothing. */
function filtersOf(q: Record<"agentId" | "status" | "type" | "direction", string>): CallFilters {
  return {
    agentId: isUuid(q.agentId) ? q.agentId : undefined,
    status: (CALL_STATUSES as readonly string[]).includes(q.status) ? (q.status as CallStatus) : undefined,
    type: q.type === "phone" || q.type === "web" ? q.type : undefined,
    direction: q.direction === "outbound" || q.direction === "inbound" ? q.direction : undefined,
  };
}

/** The list shows the newest calls, without paging. */
const LIST_LIMIT = 100;

async function listPage(
  c: Context<AppEnv>,
  extra: { errors?: FieldErrors; values?: Record<string, string> } = {},
  status: 200 | 400 = 200,
) {
  const shell = await shellOf(c, "Calls", "calls");
  const q = {
    agentId: c.req.query("agentId") ?? "",
    status: c.req.query("status") ?? "",
    type: c.req.query("type") ?? "",
    direction: c.req.query("direction") ?? "",
  };
  const { db } = c.var;
  const org = c.var.auth.organizationId;
  const [{ data: rows }, agentList] = await Promise.all([
    listCalls(db, org, { limit: LIST_LIMIT, ...filtersOf(q) }),
    listAgentNames(db, org),
  ]);
  const agentChoices = [{ value: "", label: "All agents" }, ...agentList.map((a) => ({ value: a.id, label: a.name }))];
  return c.html(
    <Layout shell={shell}>
      <div class="card">
        <h2 class="mt0">Place a test call</h2>
        <p class="hint">Calls go out through the configured telephony provider; locally the sandbox plays a scripted callee.</p>
        <ErrorSummary errors={extra.errors} />
        {agentList.length === 0 ? (
          <p>
            A test call needs an agent to answer it. <a href="/dashboard/agents/new">Create an agent</a> first.
          </p>
        ) : null}
        <form method="post" action="/dashboard/calls/test" novalidate hidden={agentList.length === 0}>
          <Csrf token={shell.csrf} />
          <div class="grid2">
            <Select
              name="agentId"
              label="Agent"
              value={extra.values?.agentId ?? agentList[0]?.id ?? ""}
              options={agentList.map((a) => ({ value: a.id, label: a.name }))}
              errors={extra.errors}
            />
            <TextField
              name="phoneNumber"
              label="Phone number (E.164)"
              value={extra.values?.phoneNumber ?? "+12025550100"}
              errors={extra.errors}
              hint={`Sandbox callees: ${SANDBOX_NUMBERS.map((n) => n.label).join("; ")}`}
            />
          </div>
          <p>
            <button type="submit" disabled={agentList.length === 0}>
              Place test call
            </button>
          </p>
        </form>
      </div>
      <form method="get" action="/dashboard/calls" class="card row" aria-label="Filter calls">
        <div class="grow">
          <Select name="agentId" label="Agent" value={q.agentId} options={agentChoices} />
        </div>
        <div class="w140">
          <Select
            name="status"
            label="Status"
            value={q.status}
            options={[{ value: "", label: "Any" }, ...CALL_STATUSES.map((s) => ({ value: s, label: s }))]}
          />
        </div>
        <div class="w120">
          <Select
            name="type"
            label="Type"
            value={q.type}
            options={[
              { value: "", label: "Any" },
              { value: "phone", label: "phone" },
              { value: "web", label: "web" },
            ]}
          />
        </div>
        <div class="w140">
          <Select
            name="direction"
            label="Direction"
            value={q.direction}
            options={[
              { value: "", label: "Any" },
              { value: "outbound", label: "outbound" },
              { value: "inbound", label: "inbound" },
            ]}
          />
        </div>
        <button type="submit" class="secondary end">
          Filter
        </button>
      </form>
      <div class="card table-wrap" tabindex={0}>
        {rows.length === 0 ? (
          <p>
            {Object.values(q).some(Boolean) ? (
              <>
                No calls match these filters. <a href="/dashboard/calls">Show all calls</a>.
              </>
            ) : (
              <>
                No calls yet. Place a test call above, or start one with <code>POST /v1/agents/{"{id}"}/calls</code>.
              </>
            )}
          </p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Agent</th>
                <th scope="col">Type</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Ended reason</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const duration = durationOf(r);
                return (
                  <tr>
                    <td>
                      <a href={`/dashboard/calls/${r.id}`}>
                        <When at={r.createdAt} />
                      </a>
                    </td>
                    <td>{r.agentName}</td>
                    <td>{r.type}</td>
                    <td class="mono">{r.toNumber ?? "—"}</td>
                    <td>{statusBadge(r.status)}</td>
                    <td class="small">{r.endedReason ?? ""}</td>
                    <td>{duration !== null ? `${duration} s` : "—"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </Layout>,
    status,
  );
}

export function registerCallPages(app: OpenAPIHono<AppEnv>): void {
  app.get("/dashboard/calls", (c) => listPage(c));

  app.post("/dashboard/calls/test", async (c) => {
    const values = { agentId: one(c.var.form, "agentId"), phoneNumber: one(c.var.form, "phoneNumber") };
    const checked = validate(testCallSchema, values);
    if (!checked.ok) return listPage(c, { errors: checked.errors, values }, 400);
    const agent = await findAgent(c.var.db, c.var.auth.organizationId, checked.data.agentId);
    if (!agent) return listPage(c, { errors: { agentId: "no such agent in this workspace" }, values }, 400);
    try {
      const { call } = await placePhoneCall(callCtx(c), agent, { phoneNumber: checked.data.phoneNumber }, undefined);
      return c.redirect(`/dashboard/calls/${call.id}`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) return listPage(c, { errors: { form: err.message }, values }, 400);
      throw err;
    }
  });

  app.get("/dashboard/calls/:id", async (c) => {
    const { call, usage } = await getCallWithUsage(c.var.db, c.var.auth.organizationId, c.req.param("id"));
    const v = toCallView(call, usage, "");
    const shell = await shellOf(c, `Call ${when(call.createdAt)}`, "calls");
    const deliveries = await deliveriesOfCall(c.var.db, c.var.auth.organizationId, call.id);
    const live = ACTIVE_STATUSES.includes(call.status);
    return c.html(
      <Layout shell={shell}>
        {live ? (
          <Flash kind="warn">
            This call is {call.status}. <a href={`/dashboard/calls/${call.id}`}>Refresh</a> to follow it.
          </Flash>
        ) : null}
        <div class="card">
          <div class="grid2">
            <p>
              <strong>Status</strong> {statusBadge(call.status)}{" "}
              {v.endedReason ? (
                <span class="small">
                  ({v.endedReason}, {v.endedReasonCategory})
                </span>
              ) : null}
            </p>
            <p>
              <strong>Agent</strong> {call.agentId ? <a href={`/dashboard/agents/${call.agentId}`}>{call.agentName}</a> : call.agentName}
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
              {v.cost.tts.quantity} characters)
            </p>
            <p>
              <strong>Latency</strong>{" "}
              {v.latency
                ? `voice-to-voice p50 ${v.latency.voiceToVoiceMsP50} ms, of which platform ${v.latency.platformMsP50} ms (${v.latency.turns} replies)`
                : "—"}
            </p>
          </div>
        </div>
        <h2>Recording</h2>
        {call.recordingKey ? (
          <div class="card">
            {/* biome-ignore lint/a11y/useMediaCaption: the transcript below is the recording's text alternative */}
            <audio
              controls
              preload="none"
              src={`/dashboard/calls/${call.id}/recording`}
              aria-label="Call recording (left: caller, right: agent)"
            >
              <a href={`/dashboard/calls/${call.id}/recording`}>Download the recording</a>
            </audio>
            <p class="hint">Stereo: the caller on the left, the agent on the right.</p>
          </div>
        ) : (
          <p class="muted">No recording{live ? " yet" : ""}.</p>
        )}
        <h2>Transcript</h2>
        <div class="card">
          {v.transcript.turns.length === 0 ? (
            <p class="muted">Nothing was said.</p>
          ) : (
            <ol class="turns">
              {v.transcript.turns.map((t) => (
                <li>
                  <span class="role">{t.role === "agent" ? "Agent" : "Caller"}</span>
                  <span class="muted small">{(t.startMs / 1000).toFixed(1)} s</span> {t.text}
                  {t.interrupted ? <span class="badge off"> interrupted</span> : null}
                </li>
              ))}
            </ol>
          )}
        </div>
        <h2>Analysis</h2>
        <div class="card">
          {call.analysis ? (
            <>
              <p>{call.analysis.summary}</p>
              <p>
                <strong>Sentiment</strong> {call.analysis.sentiment} · <strong>Topics</strong> {call.analysis.topics.join(", ") || "—"}
              </p>
              {call.analysis.actionItems.length ? (
                <ul>
                  {call.analysis.actionItems.map((a) => (
                    <li>{a}</li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : (
            <p class="muted">
              {call.analysisError ?? (live ? "After the call." : "No analysis (the call never connected or nothing was said).")}
            </p>
          )}
          {call.report ? (
            <>
              <h3>Report</h3>
              <p>
                <strong>Success score</strong> {call.report.successScore}
              </p>
              <ul>
                {call.report.criteriaResults.map((r) => (
                  <li>
                    {r.passed ? "✔" : "✘"} {r.criterion} <span class="muted small">{r.reason}</span>
                  </li>
                ))}
              </ul>
              <pre tabindex={0}>{JSON.stringify(call.report.extractedData, null, 2)}</pre>
            </>
          ) : null}
        </div>
        <h2>Webhook deliveries of this call</h2>
        <div class="card table-wrap" tabindex={0}>
          {deliveries.length === 0 ? (
            <p class="muted">None (no endpoint subscribes to voice events, or none fired yet).</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr>
                    <td class="mono">{d.event}</td>
                    <td>
                      {shell.role === "admin" ? <a href={`/dashboard/webhooks/${d.endpointId}`}>{d.endpointName}</a> : d.endpointName}
                    </td>
                    <td>{d.status}</td>
                    <td>{d.attempts}</td>
                    <td>
                      <When at={d.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </Layout>,
    );
  });

  app.get("/dashboard/calls/:id/recording", async (c) => {
    const object = await getCallRecording(c.var.db, c.env.RECORDINGS, c.var.auth.organizationId, c.req.param("id"));
    if (!object) throw new ApiError("not_found", "This call has no recording.");
    return c.body(object.body, 200, {
      "content-type": "audio/wav",
      "content-length": String(object.size),
      "cache-control": "private, no-store",
    });
  });
}
