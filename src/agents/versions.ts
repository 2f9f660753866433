// Agent versions (docs/agents.md, "Versions"): read them, compare two, make one live, roll back.
// Changes themselves are made by createAgent and updateAgent (service.ts); every operation here
// takes `{ ctx, input }` and is scoped by the organization like the agent itself.
import type { Agent, AgentVersion } from "../db/schema";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import type { Page } from "../lib/pagination";
import type { Op } from "../services";
import { agentWithConfig, changedFields, diffConfigs, type FieldChange } from "./config";
import { type ListedVersion, selectAgentAt, selectVersion, selectVersionPage, selectVersions, withAgentLocked } from "./queries/versions";
import { agentNotFound, authorOf, findAgent, getAgent, type SavedAgent, whileVoiceExists, withToolSecret } from "./service";

export type { ListedVersion };

const versionNotFound = (version: number) => new ApiError("not_found", `This agent has no version ${version}.`);

/** The version calls, chats, widgets, channels and campaigns run with unless they name one: the one the agent's row carries. */
export const liveVersionOf = (agent: Pick<Agent, "liveVersion">): number => agent.liveVersion;

/**
 * An agent as a call or a chat runs it: its row with the configuration of `version`, the number the
 * call or chat records.
 */
export interface RunnableAgent {
  agent: Agent;
  version: number;
}

/**
 * The agent (already read, the workspace's) as it runs at `version`: the live one when none is named,
 * without a read; else that version's configuration (a draft too). 404 for an unknown version.
 */
export async function agentToRun({
  ctx,
  input: { agent, version },
}: Op<{ agent: Agent; version?: number | null }, "db">): Promise<RunnableAgent> {
  if (version === undefined || version === null || version === agent.liveVersion) return { agent, version: agent.liveVersion };
  const row = await selectVersion(ctx.db, agent.organizationId, agent.id, version);
  if (!row) throw versionNotFound(version);
  return { agent: agentWithConfig(agent, row.config), version };
}

/**
 * The workspace's agent as it runs at `version` (null: the live one), in one read; null when the
 * workspace has no such agent, 404 when the agent has no such version. What a widget, a channel or
 * a campaign names is checked and run through here.
 */
export async function findAgentAt({
  ctx,
  input: { id, version },
}: Op<{ id: string; version: number | null }>): Promise<RunnableAgent | null> {
  if (!isUuid(id)) return null;
  const found = await selectAgentAt(ctx.db, ctx.organizationId, id, version);
  if (!found) return null;
  if (version === null) return { agent: found.agent, version: found.agent.liveVersion };
  if (!found.config) throw versionNotFound(version);
  return { agent: agentWithConfig(found.agent, found.config), version };
}

/** A version with its agent (whose live_version says whether it is live). */
export interface VersionOfAgent {
  agent: Agent;
  version: AgentVersion;
}

/** One version of the workspace's agent, with the agent; 404 for an unknown agent or version. */
export async function getAgentVersion({
  ctx,
  input: { agentId, version },
}: Op<{ agentId: string; version: number }>): Promise<VersionOfAgent> {
  const [agent, row] = await Promise.all([
    getAgent({ ctx, input: { id: agentId } }),
    isUuid(agentId) ? selectVersion(ctx.db, ctx.organizationId, agentId, version) : undefined,
  ]);
  if (!row) throw versionNotFound(version);
  return { agent, version: row };
}

/**
 * The agent as it was at `version`: its row (id, secret, counters) with that version's whole
 * configuration, so whatever runs an agent can run any of its versions. 404 for an unknown one.
 */
export async function agentAtVersion(args: Op<{ agentId: string; version: number }>): Promise<Agent> {
  const { agent, version } = await getAgentVersion(args);
  return agentWithConfig(agent, version.config);
}

export interface VersionPageParams {
  agentId: string;
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  createdAfter?: string;
  createdBefore?: string;
}

// The cursor is the last version number seen, opaque to clients like every other cursor.
const encodeCursor = (version: number) => btoa(JSON.stringify({ version })).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
function decodeCursor(cursor: string): number {
  try {
    const { version } = JSON.parse(atob(cursor.replace(/-/g, "+").replace(/_/g, "/"))) as { version?: unknown };
    if (Number.isSafeInteger(version) && (version as number) > 0) return version as number;
  } catch {
    // fall through to the error below
  }
  throw new ApiError("bad_request", "The cursor is not valid. Use the nextCursor of a previous page, unchanged.");
}

/** A page of the agent's versions, newest first, with the agent; 404 when the agent is not the workspace's. */
export async function listAgentVersions({ ctx, input }: Op<VersionPageParams>): Promise<{ agent: Agent; page: Page<ListedVersion> }> {
  const below = input.cursor ? decodeCursor(input.cursor) : undefined;
  const agent = await getAgent({ ctx, input: { id: input.agentId } });
  const rows = await selectVersionPage(ctx.db, ctx.organizationId, input.agentId, {
    limit: input.limit,
    below,
    createdAfter: input.createdAfter ? new Date(input.createdAfter) : undefined,
    createdBefore: input.createdBefore ? new Date(input.createdBefore) : undefined,
  });
  const hasMore = rows.length > input.limit;
  const data = hasMore ? rows.slice(0, input.limit) : rows;
  const last = data[data.length - 1];
  return { agent, page: { data, hasMore, nextCursor: hasMore && last ? encodeCursor(last.version) : null } };
}

export interface VersionDiff {
  agentId: string;
  from: number;
  to: number;
  changes: FieldChange[];
}

/** What changed from one version to another: per top-level field, its value in each. */
export async function diffAgentVersions({
  ctx,
  input: { agentId, from, to },
}: Op<{ agentId: string; from: number; to: number }>): Promise<VersionDiff> {
  if (!isUuid(agentId)) throw agentNotFound();
  const rows = await selectVersions(ctx.db, ctx.organizationId, agentId, [from, to]);
  const before = rows.find((r) => r.version === from);
  const after = rows.find((r) => r.version === to);
  if (!before || !after) {
    if (!(await findAgent({ ctx, input: { id: agentId } }))) throw agentNotFound();
    throw versionNotFound(before ? to : from);
  }
  return { agentId, from, to, changes: diffConfigs(before.config, after.config) };
}

type ChangeNeeds = "db" | "organizationId" | "config" | "actor";

/**
 * Makes a version live (default: the newest): the agent's row takes its configuration and
 * live_version in one statement. Any version may be published, an older one too; the versions
 * above it stay, as drafts. Publishing the live version changes nothing.
 */
export async function publishAgentVersion({
  ctx,
  input: { agentId, version },
}: Op<{ agentId: string; version?: number }, ChangeNeeds>): Promise<SavedAgent> {
  if (!isUuid(agentId)) throw agentNotFound();
  const row = await whileVoiceExists(
    withAgentLocked(ctx.db, ctx.organizationId, agentId, async (locked) => {
      const number = version ?? locked.agent.latestVersion;
      if (number === locked.agent.liveVersion) return locked.agent;
      const target = await locked.version(number);
      if (!target) throw versionNotFound(number);
      return locked.publish(target);
    }),
  );
  if (!row) throw agentNotFound();
  return withToolSecret({ ctx, input: row });
}

/**
 * Rolls back to an earlier version: its configuration becomes a new version, published at once,
 * so history only grows (rolling back to 2 from 3 makes 4, equal to 2).
 */
export async function rollbackAgent({
  ctx,
  input: { agentId, version },
}: Op<{ agentId: string; version: number }, ChangeNeeds>): Promise<SavedAgent> {
  if (!isUuid(agentId)) throw agentNotFound();
  const row = await whileVoiceExists(
    withAgentLocked(ctx.db, ctx.organizationId, agentId, async (locked) => {
      const target = await locked.version(version);
      if (!target) throw versionNotFound(version);
      const newest = await locked.version(locked.agent.latestVersion);
      const changes = newest ? changedFields(newest.config, target.config) : [];
      return (await locked.append({ config: target.config, changes, author: authorOf(ctx.actor), publish: true })).agent;
    }),
  );
  if (!row) throw agentNotFound();
  return withToolSecret({ ctx, input: row });
}
