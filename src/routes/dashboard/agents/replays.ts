// A call's and a chat's "Replay against a version" (src/dashboard/agent-tests/replay-form.tsx):
// what the form offers, and the POST that starts the replay through the agent-tests service the API
// calls (startReplay: its ownership checks, turn limits, run limit and version choice), then opens
// the replay's page. A refusal draws the conversation's page again with the service's words.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { recordedTurns } from "../../../agent-tests/replay";
import { startReplaySchema } from "../../../agent-tests/schema";
import { startReplay } from "../../../agent-tests/service";
import { findAgent } from "../../../agents/service";
import { listAgentVersions } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import type { ReplayChoices } from "../../../dashboard/agent-tests/replay-form";
import { one } from "../../../dashboard/forms";
import type { ChatTurn } from "../../../db/schema";
import { ApiError, invalidInput } from "../../../lib/errors";

/** Versions the form offers: the newest (the live one among them in all but rare histories, then added). */
const VERSIONS_SHOWN = 50;

/**
 * The form's choices for a conversation of `agentId`; null (no form) when it has no agent any more
 * or no caller turn to replay.
 */
export async function replayChoices(
  c: Context<AppEnv>,
  conversation: { agentId: string | null; agentVersion: number | null; transcript: ReadonlyArray<Pick<ChatTurn, "role" | "text">> },
): Promise<ReplayChoices | null> {
  const { agentId } = conversation;
  if (!agentId || recordedTurns(conversation.transcript).length === 0) return null;
  if (!(await findAgent({ ctx: c.var.ctx, input: { id: agentId } }))) return null;
  const { agent, page } = await listAgentVersions({ ctx: c.var.ctx, input: { agentId, limit: VERSIONS_SHOWN } });
  const versions = page.data.some((v) => v.version === agent.liveVersion)
    ? page.data
    : [...page.data, { version: agent.liveVersion } as (typeof page.data)[number]];
  return { agent, versions, ranVersion: conversation.agentVersion };
}

/** What a refused replay draws: the conversation's page with a flash, at the refusal's status. */
export type Redraw = (notice: { kind: "error"; text: string }, status: ContentfulStatusCode) => Promise<Response>;

/**
 * Starts the replay of the call or chat (`source`, already read as the workspace's) against the
 * form's version (the live one when "" or absent) and goes to its page; a refusal (a version that
 * is no number or not the agent's, no caller turn, too many, the workspace's run limit) redraws.
 */
export async function startReplayFrom(
  c: Context<AppEnv>,
  source: { kind: "call" | "chat"; id: string; agentId: string | null },
  redraw: Redraw,
): Promise<Response> {
  const raw = one(c.var.form, "version").trim();
  const body = { [source.kind === "call" ? "callId" : "chatId"]: source.id, ...(raw === "" ? {} : { version: Number(raw) }) };
  try {
    if (!source.agentId) throw new ApiError("not_found", `The ${source.kind}'s agent was deleted: there is no version to replay against.`);
    const checked = startReplaySchema.safeParse(body);
    if (!checked.success) throw invalidInput("form", checked.error.issues);
    const { run } = await startReplay({
      ctx: c.var.ctx,
      input: { agentId: source.agentId, source: { kind: source.kind, id: source.id }, version: checked.data.version },
    });
    return c.redirect(`/dashboard/agents/${source.agentId}/test-runs/${run.id}`, 303);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    return redraw({ kind: "error", text: err.message }, err.status as ContentfulStatusCode);
  }
}
