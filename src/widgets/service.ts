// Widgets: create, read, update, rotate the token, revoke, delete. Each operation takes
// `{ ctx, input }` (src/services.ts), shared by /v1/widgets and the dashboard. Every query is scoped
// by the organization (src/db/tenancy.ts); another workspace's widget is simply not found.
import { and, desc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { listAgentFirstMessages } from "../agents/service";
import { findAgentAt } from "../agents/versions";
import type { Db } from "../db/client";
import { pageQuery } from "../db/pagination";
import { type Widget, widgets } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { randomBase62 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { type PageParams, pageOf } from "../lib/pagination";
import type { Ctx, Op } from "../services";
import { greetingOf } from "./reply";
import { type CreateWidgetInput, DEFAULT_COLORS, type UpdateWidgetInput } from "./schema";

export type { Widget };

export const TOKEN_PREFIX = "wgt_";
const TOKEN_RE = /^wgt_[0-9A-Za-z]{32}$/;

export const newWidgetToken = (): string => `${TOKEN_PREFIX}${randomBase62(32)}`;
export const isWidgetTokenShaped = (token: string): boolean => TOKEN_RE.test(token);

/** The one answer for a missing widget and another workspace's widget. */
export const widgetNotFound = () => new ApiError("not_found", "No widget with that id in this workspace.");

const AGENT_MESSAGE = "no agent with this id in this workspace";
const unknownAgent = () =>
  new ApiError("validation_failed", `Invalid json: agentId: ${AGENT_MESSAGE}`, { issues: [{ path: "agentId", message: AGENT_MESSAGE }] });

/** The workspace's agent (400 when it has none such), at the version named (404 when the agent has no such version). */
async function requireAgent(db: Db, organizationId: string, agentId: string, version: number | null): Promise<void> {
  if (!(await findAgentAt({ ctx: { db, organizationId }, input: { id: agentId, version } }))) throw unknownAgent();
}

/** The agent was deleted between the check and the write: the same 400 as if it never existed. */
async function whileAgentExists<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    let e: unknown = err;
    for (let i = 0; i < 5 && typeof e === "object" && e !== null; i++) {
      if ((e as { code?: unknown }).code === "23503") throw unknownAgent();
      e = (e as { cause?: unknown }).cause;
    }
    throw err;
  }
}

/**
 * The agents a widget of this workspace may put on a website, by name (the dashboard's agent
 * picker), each with the greeting a widget of it shows when it sets none (the live preview's).
 */
export async function listWidgetAgents({
  ctx,
}: {
  ctx: Ctx<"db" | "organizationId">;
}): Promise<Array<{ id: string; name: string; greeting: string | null }>> {
  const rows = await listAgentFirstMessages({ ctx });
  return rows.map((a) => ({ id: a.id, name: a.name, greeting: greetingOf({ greeting: null }, a) }));
}

const scoped = (organizationId: string, id: string) => ownedRow(widgets, organizationId, id);

export async function createWidget({ ctx, input }: Op<CreateWidgetInput>): Promise<Widget> {
  const { db, organizationId } = ctx;
  await requireAgent(db, organizationId, input.agentId, input.agentVersion);
  const [row] = await whileAgentExists(
    db
      .insert(widgets)
      .values({
        organizationId,
        agentId: input.agentId,
        agentVersion: input.agentVersion,
        name: input.name,
        mode: input.mode,
        allowedOrigins: input.allowedOrigins,
        title: input.title,
        greeting: input.greeting,
        colors: { ...DEFAULT_COLORS, ...input.colors },
        position: input.position,
        token: newWidgetToken(),
      })
      .returning(),
  );
  if (!row) throw new Error("insert returned no row");
  return row;
}

export async function getWidget({ ctx, input: { id } }: Op<{ id: string }>): Promise<Widget | null> {
  const [row] = await ctx.db.select().from(widgets).where(scoped(ctx.organizationId, id)).limit(1);
  return row ?? null;
}

export async function listWidgets({ ctx, input: params }: Op<PageParams & { agentId?: string }>) {
  const { db, organizationId } = ctx;
  const page = pageQuery(params);
  const conditions: SQL[] = [ownedBy(widgets, organizationId), ...page.where(widgets)];
  if (params.agentId) conditions.push(eq(widgets.agentId, params.agentId));
  const rows = await db
    .select()
    .from(widgets)
    .where(and(...conditions))
    .orderBy(desc(widgets.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (row) => row);
}

/**
 * Only the fields sent change; `colors` sub-fields are merged in the UPDATE itself (jsonb ||). A
 * version belongs to its agent: another agent without `agentVersion` runs its live version.
 */
export async function updateWidget({ ctx, input: { id, ...input } }: Op<UpdateWidgetInput & { id: string }>): Promise<Widget | null> {
  const { db, organizationId } = ctx;
  if (input.agentId !== undefined || input.agentVersion !== undefined) {
    const current = await getWidget({ ctx, input: { id } });
    if (!current) return null;
    const agentId = input.agentId ?? current.agentId;
    if (input.agentVersion === undefined && agentId !== current.agentId) input.agentVersion = null;
    await requireAgent(db, organizationId, agentId, input.agentVersion ?? null);
  }
  const { colors, ...rest } = input;
  type Row = typeof widgets.$inferInsert;
  const patch: { [K in keyof Row]?: Row[K] | SQL } = {};
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) Object.assign(patch, { [key]: value });
  if (colors !== undefined) patch.colors = sql`${widgets.colors} || ${JSON.stringify(colors)}::jsonb`;
  const [row] = await whileAgentExists(db.update(widgets).set(patch).where(scoped(organizationId, id)).returning());
  return row ?? null;
}

export async function deleteWidget({ ctx, input: { id } }: Op<{ id: string }>): Promise<boolean> {
  const [row] = await ctx.db.delete(widgets).where(scoped(ctx.organizationId, id)).returning({ id: widgets.id });
  return Boolean(row);
}

/**
 * A new token; the old one stops at once (pages still embedding it go quiet until updated).
 * Also reactivates a revoked widget, under the new token: a revoked token never works again.
 */
export async function rotateWidgetToken({ ctx, input: { id } }: Op<{ id: string }>): Promise<Widget | null> {
  const [row] = await ctx.db
    .update(widgets)
    .set({ token: newWidgetToken(), tokenRotatedAt: sql`now()`, revokedAt: null })
    .where(scoped(ctx.organizationId, id))
    .returning();
  return row ?? null;
}

/** The token stops at once; the widget and its sessions are kept. 409 when already revoked. */
export async function revokeWidget({ ctx, input: { id } }: Op<{ id: string }>): Promise<Widget | null> {
  const [row] = await ctx.db
    .update(widgets)
    .set({ revokedAt: sql`now()` })
    .where(and(scoped(ctx.organizationId, id), isNull(widgets.revokedAt)))
    .returning();
  if (row) return row;
  if (await getWidget({ ctx, input: { id } })) {
    throw new ApiError("conflict", "The widget is already revoked. Rotate its token to use it again (with a new token).");
  }
  return null;
}

/** The public routes' lookup: an active widget by its token. */
export async function findActiveWidget({ ctx, input: { token } }: Op<{ token: string }, "db">): Promise<Widget | null> {
  const { db } = ctx;
  if (!isWidgetTokenShaped(token)) return null;
  const [row] = await db
    .select()
    .from(widgets)
    .where(and(eq(widgets.token, token), isNull(widgets.revokedAt)))
    .limit(1);
  return row ?? null;
}

/**
 * The dashboard preview's lookup: a widget of one of the signed-in user's workspaces, by id,
 * revoked or not (the preview is authorised by the session, not by the token). Null for any other.
 */
export async function findWidgetOfWorkspaces({
  ctx,
  input: { id, organizationIds },
}: Op<{ id: string; organizationIds: string[] }, "db">): Promise<Widget | null> {
  if (!isUuid(id) || organizationIds.length === 0) return null;
  const [row] = await ctx.db
    .select()
    .from(widgets)
    .where(and(eq(widgets.id, id), inArray(widgets.organizationId, organizationIds)))
    .limit(1);
  return row ?? null;
}
