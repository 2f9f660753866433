// The configuration a test run plays against: the one place that chooses it, so agent versions
// (issue 34, "Agent versions") plug in here. Until versions exist, a run takes the agent's current
// configuration, and a run that names a version is refused: no version can be found.

import { findAgent } from "../agents/service";
import type { Agent } from "../db/schema";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import type { Ctx } from "../services";

export const agentNotFound = () => new ApiError("not_found", "No agent with that id in this workspace.");

/** The agent as the run plays it (at `version`, when one is named); 404 when the agent or the version is unknown. */
export async function configForRun(ctx: Ctx<"db" | "organizationId">, agentId: string, version?: number | null): Promise<Agent> {
  const agent = isUuid(agentId) ? await findAgent({ ctx, input: { id: agentId } }) : null;
  if (!agent) throw agentNotFound();
  if (version !== undefined && version !== null)
    throw new ApiError(
      "not_found",
      `The agent has no version ${version}: it keeps no versions yet, so a run plays its current configuration (omit \`version\`).`,
    );
  return agent;
}
