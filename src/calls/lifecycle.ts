// What happens when a call changes state: the webhook of the change, and after the end, the
// analysis and `call.analyzed`. Called by whichever writer won the transition (the media
// session, a provider callback, the API or the watchdog), so each event fires once.

import { recordCampaignOutcome } from "../campaigns/runner/outcome";
import type { Call, TranscriptTurn } from "../db/schema";
import { rootCause } from "../lib/errors";
import type { DomainContext } from "../services";
import { emit } from "../webhooks/deliver";
import { publicOrigin } from "../webhooks/endpoints";
import { AnalysisError, analyzeCall } from "./analysis";
import {
  endCall,
  findAnalysisSettings,
  findCall,
  moveCall,
  refreshCost,
  type StoredRecording,
  saveAnalysis,
  saveAnalysisError,
} from "./queries/calls";
import { type EndedReason, TERMINAL } from "./states";
import { analysisSkippedOf, callEventData } from "./views";

const originOf = (deps: DomainContext) => publicOrigin(deps.config, deps.origin ?? "");

async function fire(deps: DomainContext, call: Call, event: string): Promise<void> {
  await emit(deps, { organizationId: call.organizationId, event, data: callEventData(call, originOf(deps)), subjectId: call.id });
}

/** The callee answered (or the browser joined): in-progress, `call.started`. False when the call was not waiting to start. */
export async function startCall(deps: DomainContext, callId: string, deadlineAt: Date): Promise<Call | null> {
  const row = await moveCall(deps.db, callId, "in-progress", { startedAt: new Date(), deadlineAt });
  if (row) await fire(deps, row, "call.started");
  return row;
}

/**
 * A connected media stream marks its call started; true while the call is live: started by us, or
 * already by the carrier's callback. False when another writer ended it meanwhile.
 */
export async function connectedCallLive(deps: DomainContext, callId: string, deadlineAt: Date): Promise<boolean> {
  if (await startCall(deps, callId, deadlineAt)) return true;
  const now = await findCall(deps.db, callId);
  return now !== null && !isEnded(now);
}

/**
 * Ends the call with a reason. The winner fires `call.completed` (a conversation that ended) or
 * `call.failed` (it never connected, or died), records a campaign call's outcome, then runs the analysis in the background: only
 * for a call that connected and where the caller said something (else the call's
 * `analysisSkipped` says why, and nothing is asked of the LLM or charged).
 */
export async function finishCall(
  deps: DomainContext,
  callId: string,
  reason: EndedReason,
  transcript?: TranscriptTurn[],
  recording?: StoredRecording | null,
): Promise<Call | null> {
  const row = await endCall(deps.db, callId, reason, transcript, recording);
  if (!row) return null;
  await fire(deps, row, row.status === "completed" ? "call.completed" : "call.failed");
  // A campaign's call: its recipient's outcome (a retry, or final), and its runner woken to fill the
  // place. A failure here is left to the runner, which finds the ended call and records it.
  if (row.campaignId)
    await recordCampaignOutcome(deps, row).catch((err: Error) =>
      console.error(JSON.stringify({ level: "error", msg: "campaign outcome not recorded", callId: row.id, error: err.message })),
    );
  if (analysisSkippedOf(row) === null) deps.waitUntil(analyze(deps, row));
  else deps.waitUntil(refreshCost(deps.db, row.id));
  return row;
}

async function analyze(deps: DomainContext, call: Call): Promise<void> {
  const agent = await findAnalysisSettings(deps.db, call);
  try {
    const { analysis, report } = await analyzeCall(deps, call, agent);
    await refreshCost(deps.db, call.id);
    const row = await saveAnalysis(deps.db, call.id, analysis, report);
    if (row) await fire(deps, row, "call.analyzed");
  } catch (err) {
    // Only our own message is stored (it is shown by the API); the cause is logged, never shown.
    const message = err instanceof AnalysisError ? err.message : "The analysis failed; it can be retried later.";
    if (!(err instanceof AnalysisError)) {
      const root = rootCause(err as Error);
      console.error(
        JSON.stringify({
          level: "error",
          msg: "call analysis failed",
          callId: call.id,
          error: root.name,
          message: root.message.slice(0, 200),
        }),
      );
    }
    await saveAnalysisError(deps.db, call.id, message);
    await refreshCost(deps.db, call.id);
  }
}

export const isEnded = (call: Pick<Call, "status">) => TERMINAL.has(call.status);
