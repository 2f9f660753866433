// The configuration a test run plays against: the one place that chooses it. A run names the
// agent's version it plays (docs/agents.md, "Versions"); one started without a version is queued
// with the live version of that moment, so a change published while it waits does not change what
// it tests.
import { findAgent } from "../agents/service";
import { agentAtVersion } from "../agents/versions";
import type { Agent } from "../db/schema";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import type { Ctx } from "../services";

export const agentNotFound = () => new ApiError("not_found", "No agent with that id in this workspace.");

/** The agent as the run plays it (at `version`, when one is named); 404 when the agent or the version is unknown. */
export async function configForRun(ctx: Ctx<"db" | "organizationId">, agentId: string, version?: number | null): Promise<Agent> {
  const agent = isUuid(agentId) ? await findAgent({ ctx, input: { id: agentId } }) : null;
  if (!agent) throw agentNotFound();
  if (version === undefined || version === null || version === agent.liveVersion) return agent;
  return agentAtVersion({ ctx, input: { agentId, version } });
}
