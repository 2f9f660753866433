// A queued run played to its end, whatever its mode: a test's scenario as a chat (run.ts) or as a
// voice call (voice.ts), or a replay of a past conversation (replay.ts). The outcome is stored once,
// with the run's cost.
import type { AgentTestRun } from "../db/schema";
import type { DomainContext } from "../services";
import type { ToolTurnDeps } from "../tools/runtime";
import { findTestById, finishRun, markRunning, type RunOutcome } from "./queries";
import { playReplay, playVoiceReplay } from "./replay";
import { playRun } from "./run";
import { playVoiceRun, type VoiceRunDeps } from "./voice";

const testDeleted: RunOutcome = {
  status: "error",
  transcript: [],
  results: null,
  toolsCalled: [],
  latency: null,
  error: "The test was deleted before the run started.",
};

/**
 * Runs a queued run to its end and stores the outcome (with its cost, once every settlement of its
 * model calls has landed); returns the final row, or null when the run was not queued (another
 * worker took it, or it was ended). `capMs` replaces the mode's time cap.
 */
export async function executeRun(
  ctx: Pick<DomainContext, "db" | "config" | "providers"> & Omit<VoiceRunDeps, "waitUntil">,
  runId: string,
  capMs?: number,
): Promise<AgentTestRun | null> {
  const run = await markRunning(ctx.db, runId);
  if (!run) return null;
  const settling: Promise<unknown>[] = [];
  const deps: ToolTurnDeps = { db: ctx.db, config: ctx.config, providers: ctx.providers, waitUntil: (p) => settling.push(p) };
  let outcome: RunOutcome;
  if (run.mode === "replay")
    outcome = run.source?.voice
      ? await playVoiceReplay({ ...ctx, waitUntil: deps.waitUntil }, run, capMs)
      : await playReplay(deps, run, capMs);
  else {
    const test = run.testId ? await findTestById(ctx.db, run.testId) : undefined;
    if (!test) outcome = testDeleted;
    else if (run.mode === "voice") outcome = await playVoiceRun({ ...ctx, waitUntil: deps.waitUntil }, run, test, capMs);
    else outcome = await playRun(deps, run, test, capMs);
  }
  // Settlements run in the background of each model call: the run's cost is their sum.
  while (settling.length > 0) await Promise.allSettled(settling.splice(0));
  return (await finishRun(ctx.db, run.id, outcome)) ?? null;
}
