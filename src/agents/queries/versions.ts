// The database side of agent versions (docs/agents.md, "Versions"). A change locks the agent's row
// for one transaction: it reads what it builds on (the live row, the newest version), appends the
// next number and, when it publishes, copies the configuration onto the row with live_version in
// the same UPDATE. The row's lock makes concurrent changes wait, so each gets its own number and
// none builds on a stale configuration; the primary key (agent_id, version) holds it anyway.
import { and, desc, eq, gt, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client";
import {
  type Agent,
  type AgentConfig,
  type AgentVersion,
  agents,
  agentVersions,
  apiKeys,
  users,
  type VersionAuthorType,
} from "../../db/schema";
import { ownedRow } from "../../db/tenancy";
import { agentConfigOf } from "../config";

export interface VersionAuthor {
  type: VersionAuthorType;
  id: string | null;
}

type NewAgentRow = typeof agents.$inferInsert & { id: string; organizationId: string };

/** Inserts an agent and its version 1 (live) together. */
export async function insertAgentWithFirstVersion(db: Db, row: NewAgentRow, config: AgentConfig, author: VersionAuthor): Promise<Agent> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .insert(agents)
      .values({ ...row, liveVersion: 1, latestVersion: 1 })
      .returning();
    if (!agent) throw new Error("insert returned no row");
    await tx.insert(agentVersions).values({
      organizationId: agent.organizationId,
      agentId: agent.id,
      version: 1,
      config,
      createdByType: author.type,
      createdById: author.id,
      createdAt: agent.createdAt,
    });
    return agent;
  });
}

/** What a change may do while it holds the agent's row. */
export interface LockedAgent {
  /** The agent's row as locked: the live configuration and the version counters. */
  agent: Agent;
  /** One of the agent's versions, or undefined. */
  version(version: number): Promise<AgentVersion | undefined>;
  /**
   * Appends the next version; `publish` also makes it live (the row takes its configuration).
   * `toolSecret` is an expression for the row's secret, set with the new version.
   */
  append(input: { config: AgentConfig; changes: string[]; author: VersionAuthor; publish: boolean; toolSecret?: SQL }): Promise<{
    agent: Agent;
    version: AgentVersion;
  }>;
  /** Makes an existing version live: its configuration onto the row, with live_version, in one UPDATE. */
  publish(version: AgentVersion): Promise<Agent>;
}

/** Runs `work` with the workspace's agent locked, in one transaction; undefined when there is no such agent. */
export async function withAgentLocked<T>(
  db: Db,
  organizationId: string,
  agentId: string,
  work: (locked: LockedAgent) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .select()
      .from(agents)
      .where(ownedRow(agents, organizationId, agentId))
      .for("update");
    if (!agent) return undefined;
    const setRow = async (set: PgUpdateSetSource<typeof agents>): Promise<Agent> => {
      const [row] = await tx.update(agents).set(set).where(eq(agents.id, agent.id)).returning();
      if (!row) throw new Error("the locked agent's row is gone");
      return row;
    };
    const locked: LockedAgent = {
      agent,
      async version(version) {
        const [row] = await tx
          .select()
          .from(agentVersions)
          .where(and(eq(agentVersions.agentId, agent.id), eq(agentVersions.version, version)));
        return row;
      },
      async append({ config, changes, author, publish, toolSecret }) {
        const number = agent.latestVersion + 1;
        const [version] = await tx
          .insert(agentVersions)
          .values({
            organizationId,
            agentId: agent.id,
            version: number,
            config: agentConfigOf(config),
            changes,
            createdByType: author.type,
            createdById: author.id,
          })
          .returning();
        if (!version) throw new Error("insert returned no row");
        const row = await setRow({
          latestVersion: number,
          ...(publish ? { ...agentConfigOf(config), liveVersion: number } : {}),
          ...(toolSecret ? { toolSecret } : {}),
        });
        return { agent: row, version };
      },
      publish(version) {
        return setRow({ ...agentConfigOf(version.config), liveVersion: version.version });
      },
    };
    return work(locked);
  });
}

/** One version of the workspace's agent, or undefined. */
export async function selectVersion(db: Db, organizationId: string, agentId: string, version: number): Promise<AgentVersion | undefined> {
  const [row] = await db
    .select()
    .from(agentVersions)
    .where(and(eq(agentVersions.organizationId, organizationId), eq(agentVersions.agentId, agentId), eq(agentVersions.version, version)));
  return row;
}

/**
 * The workspace's agent with the configuration of one of its versions, in one read (the agents row
 * joined with that version): `config` is null when no version is named or the agent has no such
 * version; undefined when there is no such agent.
 */
export async function selectAgentAt(
  db: Db,
  organizationId: string,
  agentId: string,
  version: number | null,
): Promise<{ agent: Agent; config: AgentConfig | null } | undefined> {
  if (version === null) {
    const [agent] = await db
      .select()
      .from(agents)
      .where(ownedRow(agents, organizationId, agentId));
    return agent ? { agent, config: null } : undefined;
  }
  const [row] = await db
    .select({ agent: agents, config: agentVersions.config })
    .from(agents)
    .leftJoin(agentVersions, and(eq(agentVersions.agentId, agents.id), eq(agentVersions.version, version)))
    .where(ownedRow(agents, organizationId, agentId));
  return row;
}

/** Two versions of the workspace's agent (for a diff), those found. */
export async function selectVersions(db: Db, organizationId: string, agentId: string, versions: number[]): Promise<AgentVersion[]> {
  return db
    .select()
    .from(agentVersions)
    .where(
      and(eq(agentVersions.organizationId, organizationId), eq(agentVersions.agentId, agentId), inArray(agentVersions.version, versions)),
    );
}

/** A version as the list shows it: who made it by name where one is known (a user's email, an API key's name). */
export type ListedVersion = Omit<AgentVersion, "config"> & { createdByName: string | null };

export interface VersionPageQuery {
  limit: number;
  /** Only versions below this number (the cursor). */
  below?: number;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** A page of an agent's versions, newest first, one past the page to tell whether more follow. */
export async function selectVersionPage(db: Db, organizationId: string, agentId: string, page: VersionPageQuery): Promise<ListedVersion[]> {
  const conditions: SQL[] = [eq(agentVersions.organizationId, organizationId), eq(agentVersions.agentId, agentId)];
  if (page.below !== undefined) conditions.push(lt(agentVersions.version, page.below));
  if (page.createdAfter) conditions.push(gt(agentVersions.createdAt, page.createdAfter));
  if (page.createdBefore) conditions.push(lt(agentVersions.createdAt, page.createdBefore));
  return db
    .select({
      organizationId: agentVersions.organizationId,
      agentId: agentVersions.agentId,
      version: agentVersions.version,
      changes: agentVersions.changes,
      createdByType: agentVersions.createdByType,
      createdById: agentVersions.createdById,
      createdAt: agentVersions.createdAt,
      createdByName: sql<string | null>`coalesce(${users.email}, ${apiKeys.name})`,
    })
    .from(agentVersions)
    .leftJoin(users, and(eq(agentVersions.createdByType, "user"), eq(users.id, agentVersions.createdById)))
    .leftJoin(
      apiKeys,
      and(
        eq(agentVersions.createdByType, "api_key"),
        eq(apiKeys.id, agentVersions.createdById),
        eq(apiKeys.organizationId, agentVersions.organizationId),
      ),
    )
    .where(and(...conditions))
    .orderBy(desc(agentVersions.version))
    .limit(page.limit + 1);
}
