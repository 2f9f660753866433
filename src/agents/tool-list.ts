// One change to an agent's tool list: a tool added, one replaced (edited, perhaps renamed) or one
// removed, by name (a built-in by its type). The list it changes is the one the change builds on, as
// for any change (docs/agents.md, "Versions"): the live version's, or with `draft` the newest
// version's, so successive drafts build on each other. The new list passes the API's own list schema
// (a duplicate name is refused) and is saved by updateAgent (the URL guard, the signing secret made
// with the first tools, a version). Used by the dashboard's tool builder.
import { ApiError } from "../lib/errors";
import type { Ctx, Op } from "../services";
import { type ToolInput, toolsSchema } from "../tools/schema";
import { getAgent, type SavedAgent, updateAgent } from "./service";
import { agentAtVersion } from "./versions";

export type ToolChange = { add: ToolInput } | { replace: string; tool: ToolInput } | { remove: string };

/** A tool's name in the list: a function's name, a built-in's type. */
export const toolNameOf = (tool: { type: string; name?: string }): string => (tool.type === "function" ? (tool.name ?? "") : tool.type);

const noSuchTool = (name: string, draft: boolean) =>
  new ApiError("not_found", `The agent's ${draft ? "newest version" : "live version"} has no tool named "${name}".`);

async function baseTools(ctx: Ctx<"db" | "organizationId">, id: string, draft: boolean) {
  const agent = await getAgent({ ctx, input: { id } });
  if (!draft || agent.latestVersion === agent.liveVersion) return agent.tools;
  return (await agentAtVersion({ ctx, input: { agentId: id, version: agent.latestVersion } })).tools;
}

export async function changeAgentTools({
  ctx,
  input: { id, change, draft = false },
}: Op<{ id: string; change: ToolChange; draft?: boolean }, "db" | "organizationId" | "config" | "actor">): Promise<SavedAgent> {
  const tools: unknown[] = [...(await baseTools(ctx, id, draft))];
  if ("add" in change) tools.push(change.add);
  else {
    const name = "replace" in change ? change.replace : change.remove;
    const at = tools.findIndex((t) => toolNameOf(t as ToolInput) === name);
    if (at < 0) throw noSuchTool(name, draft);
    if ("replace" in change) tools[at] = change.tool;
    else tools.splice(at, 1);
  }
  const checked = toolsSchema.safeParse(tools);
  if (!checked.success) {
    // The one problem a single valid tool can bring to the list: its name (or the list's size).
    const issue = checked.error.issues[0];
    const path = issue?.path.length === 2 && issue.path[1] === "name" ? "name" : "tools";
    const message = issue?.message ?? "is not a valid list of tools";
    throw new ApiError("validation_failed", `Invalid json: ${path}: ${message}`, { issues: [{ path, message }] });
  }
  return updateAgent({ ctx, input: { id, patch: { tools: checked.data }, draft } });
}
