// Agents: create, read, list, update, delete. Each operation takes one `{ ctx, input }`
// (src/services.ts): `ctx` the part of the request context it needs (`Ctx<"db" | "organizationId">`,
// plus `"config"` where the tool secret or the tools' URLs are involved), `input` an object, ids
// included. Shared by /v1/agents, the dashboard and the other resources that name an agent. Every query
// is scoped by the organization; another workspace's agent is simply not found, with the same
// answer as a missing one. An agent's voiceId must name a voice the workspace can see.
import { and, asc, desc, eq, ilike, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { isForeignKeyViolation } from "../db/errors";
import { containsPattern } from "../db/like";
import { pageQuery } from "../db/pagination";
import { type Agent, agents } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { ownedKnowledgeBaseIds } from "../knowledge/service";
import { ApiError } from "../lib/errors";
import { isUuid, newId } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import type { Actor, Ctx, Op } from "../services";
import { maskedToolSecret } from "../tools/secret";
import { checkToolUrls, mintToolSecret } from "../tools/service";
import { findVisibleVoice } from "../voices/service";
import { agentConfigOf, applyAgentPatch, changedFields } from "./config";
import { toNewAgentRow } from "./mapper";
import { insertAgentWithFirstVersion, type VersionAuthor, withAgentLocked } from "./queries/versions";
import type { CreateAgentInput, UpdateAgentInput } from "./schema";

export type { Agent };

/** The one answer for a missing agent and another workspace's agent. */
export const agentNotFound = () => new ApiError("not_found", "No agent with that id in this workspace.");

const scoped = (organizationId: string, id: string) => ownedRow(agents, organizationId, id);

const VOICE_MESSAGE = "no voice with this id in this workspace or the system catalog";
const unusableVoice = () =>
  new ApiError("validation_failed", `Invalid json: voiceId: ${VOICE_MESSAGE}`, { issues: [{ path: "voiceId", message: VOICE_MESSAGE }] });

const KNOWLEDGE_MESSAGE = "no knowledge base with this id in this workspace";

/** Every knowledge base an agent names must be the workspace's (another's is refused like a missing one). */
async function requireOwnKnowledgeBases(db: Db, organizationId: string, ids: string[] | undefined): Promise<void> {
  if (!ids?.length) return;
  const owned = await ownedKnowledgeBaseIds({ ctx: { db, organizationId }, input: { ids } });
  const missing = ids.findIndex((id) => !owned.has(id));
  if (missing >= 0) {
    const path = `knowledge.knowledgeBaseIds.${missing}`;
    throw new ApiError("validation_failed", `Invalid json: ${path}: ${KNOWLEDGE_MESSAGE}`, {
      issues: [{ path, message: KNOWLEDGE_MESSAGE }],
    });
  }
}

/** The voice check: a system voice or the workspace's own; another workspace's voice is refused exactly like a missing one. */
async function requireUsableVoice(db: Db, organizationId: string, voiceId: string | null | undefined): Promise<void> {
  if (!voiceId) return;
  if (!(await findVisibleVoice({ ctx: { db, organizationId }, input: { id: voiceId } }))) throw unusableVoice();
}

/** Who a version records as its author: the request's API key or user (docs/agents.md, "Versions"). */
export const authorOf = (actor: Actor): VersionAuthor => (actor.type === "system" ? { type: "system", id: null } : actor);

/** The voice was deleted between the check and the write: the same 400 as if it never existed. */
export async function whileVoiceExists<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isForeignKeyViolation(err)) throw unusableVoice();
    throw err;
  }
}

/**
 * An agent with its tool signing secret: in clear when the write created it (`secretCreated`, shown
 * in full then), masked otherwise (withToolSecret).
 */
export interface SavedAgent {
  agent: Agent;
  toolSecret: string | null;
  secretCreated: boolean;
}

/** Every agent gets its tool signing secret when it is created (docs/tools.md), and its version 1, live. */
export async function createAgent({ ctx, input }: Op<CreateAgentInput, "db" | "organizationId" | "config" | "actor">): Promise<SavedAgent> {
  const { db, organizationId } = ctx;
  await Promise.all([
    requireUsableVoice(db, organizationId, input.voiceId),
    checkToolUrls({ ctx, input: { tools: input.tools } }),
    requireOwnKnowledgeBases(db, organizationId, input.knowledge.knowledgeBaseIds),
  ]);
  const id = newId();
  const secret = await mintToolSecret({ ctx, input: { agentId: id } });
  const values = toNewAgentRow(organizationId, input, id, secret.sealed);
  const row = await whileVoiceExists(insertAgentWithFirstVersion(db, values, agentConfigOf(values), authorOf(ctx.actor)));
  return { agent: row, toolSecret: secret.plain, secretCreated: true };
}

/**
 * The agent with its tool signing secret as the views show it: masked (`tss_...XXXXXX`; in full only
 * when created or rotated). Opened once per isolate and sealed value, so a page of agents costs
 * no decryption per row after the first.
 */
export async function withToolSecret({ ctx, input: agent }: Op<Agent, "config">): Promise<SavedAgent> {
  const toolSecret = agent.toolSecret === null ? null : await maskedToolSecret(ctx.config, agent.id, agent.toolSecret);
  return { agent, toolSecret, secretCreated: false };
}

/** A new tool signing secret for the agent: the old one stops signing at once; 404 when not the workspace's. */
export async function rotateToolSecret({
  ctx,
  input: { id },
}: Op<{ id: string }, "db" | "organizationId" | "config">): Promise<SavedAgent> {
  if (!isUuid(id)) throw agentNotFound();
  const secret = await mintToolSecret({ ctx, input: { agentId: id } });
  const [row] = await ctx.db.update(agents).set({ toolSecret: secret.sealed }).where(scoped(ctx.organizationId, id)).returning();
  if (!row) throw agentNotFound();
  return { agent: row, toolSecret: secret.plain, secretCreated: true };
}

/**
 * The LLM models an agent may be given, as the configured provider lists them (for the form's
 * suggestions): its chat models first. Empty when the provider lists none or cannot be reached (the
 * form then takes any id, as the API does); never an error.
 */
export async function llmModelChoices({ ctx }: { ctx: Ctx<"providers"> }): Promise<string[]> {
  try {
    const chat = ctx.providers.chat();
    const ids = (await chat.models?.(AbortSignal.timeout(3_000))) ?? [];
    const speechOrAudio = /(tts|whisper|transcribe|embedding|dall-e|moderation|audio|realtime|image)/i;
    return ids.filter((id) => !speechOrAudio.test(id)).slice(0, 200);
  } catch (err) {
    console.log(JSON.stringify({ level: "info", msg: "the LLM provider's model list is unavailable", error: (err as Error).name }));
    return [];
  }
}

/** The workspace's agent by id, or null. An id that is not a UUID names no agent. */
export async function findAgent({ ctx, input: { id } }: Op<{ id: string }>): Promise<Agent | null> {
  if (!isUuid(id)) return null;
  const [row] = await ctx.db.select().from(agents).where(scoped(ctx.organizationId, id)).limit(1);
  return row ?? null;
}

/** The workspace's agent by id; 404 otherwise. */
export async function getAgent(args: Op<{ id: string }>): Promise<Agent> {
  const row = await findAgent(args);
  if (!row) throw agentNotFound();
  return row;
}

export interface AgentFilters {
  /** Only agents whose name contains this (case-insensitive, taken literally). */
  name?: string;
  /** Only agents using this voice. */
  voiceId?: string;
}

/** A page of the workspace's agents, newest first. */
export async function listAgents({ ctx, input: params }: Op<PageParams & AgentFilters>): Promise<Page<Agent>> {
  const page = pageQuery(params);
  const conditions: SQL[] = [ownedBy(agents, ctx.organizationId), ...page.where(agents)];
  if (params.name) conditions.push(ilike(agents.name, containsPattern(params.name)));
  if (params.voiceId) conditions.push(eq(agents.voiceId, params.voiceId));
  const rows = await ctx.db
    .select()
    .from(agents)
    .where(and(...conditions))
    .orderBy(desc(agents.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (row) => row);
}

/** Every agent of the workspace as {id, name}, by name: the pickers of other screens. */
export async function listAgentNames({ ctx }: { ctx: Ctx<"db" | "organizationId"> }): Promise<Array<{ id: string; name: string }>> {
  return ctx.db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(ownedBy(agents, ctx.organizationId))
    .orderBy(asc(agents.name));
}

/** The workspace's agents by name, with their first message (what a widget greets with when it sets none). */
export async function listAgentFirstMessages({
  ctx,
}: {
  ctx: Ctx<"db" | "organizationId">;
}): Promise<Array<{ id: string; name: string; firstMessage: string | null }>> {
  return ctx.db
    .select({ id: agents.id, name: agents.name, firstMessage: agents.firstMessage })
    .from(agents)
    .where(ownedBy(agents, ctx.organizationId))
    .orderBy(asc(agents.name));
}

/**
 * Only the fields sent change (config.ts: `metadata`, `tools` and `voicemail` replaced whole, the plans
 * merged); 404 when not the workspace's. Each change is a new version (docs/agents.md, "Versions"):
 * published at once, built on the live configuration; or, with `draft`, built on the newest version
 * and not live. A change that leaves its base as it was makes no version. An agent created before
 * tools existed gets its signing secret with its first tools (shown in full in that response).
 */
export async function updateAgent({
  ctx,
  input: { id, patch: input, draft = false },
}: Op<{ id: string; patch: UpdateAgentInput; draft?: boolean }, "db" | "organizationId" | "config" | "actor">): Promise<SavedAgent> {
  if (!isUuid(id)) throw agentNotFound();
  const { db, organizationId } = ctx;
  await Promise.all([
    requireUsableVoice(db, organizationId, input.voiceId),
    input.tools ? checkToolUrls({ ctx, input: { tools: input.tools } }) : undefined,
    requireOwnKnowledgeBases(db, organizationId, input.knowledge?.knowledgeBaseIds),
  ]);
  const minted = input.tools?.length ? await mintToolSecret({ ctx, input: { agentId: id } }) : null;
  const row = await whileVoiceExists(
    withAgentLocked(db, organizationId, id, async (locked) => {
      const newest = (await locked.version(locked.agent.latestVersion))?.config ?? agentConfigOf(locked.agent);
      const base = draft ? newest : agentConfigOf(locked.agent);
      const config = applyAgentPatch(base, input);
      if (changedFields(base, config).length === 0) return locked.agent;
      const toolSecret = minted ? sql`coalesce(${agents.toolSecret}, ${minted.sealed})` : undefined;
      const changes = changedFields(newest, config);
      return (await locked.append({ config, changes, author: authorOf(ctx.actor), publish: !draft, toolSecret })).agent;
    }),
  );
  if (!row) throw agentNotFound();
  if (minted && row.toolSecret === minted.sealed) return { agent: row, toolSecret: minted.plain, secretCreated: true };
  return withToolSecret({ ctx, input: row });
}

/** Deletes at once (the agent's calls are kept); 404 when not the workspace's. */
export async function deleteAgent({ ctx, input: { id } }: Op<{ id: string }>): Promise<void> {
  const [row] = isUuid(id) ? await ctx.db.delete(agents).where(scoped(ctx.organizationId, id)).returning({ id: agents.id }) : [];
  if (!row) throw agentNotFound();
}
