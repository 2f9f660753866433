// Widgets: create, read, update, rotate the token, revoke, delete. Plain functions of
// (db, organizationId, input), shared by /v1/widgets and the dashboard. Every query is scoped
// by the organization (src/db/tenancy.ts); another workspace's widget is simply not found.
// Also the statements of the widget chat sessions (their rules: sessions.ts), at the end.
import { and, desc, eq, isNull, lt, type SQL, sql } from "drizzle-orm";
import { findAgent, listAgentNames } from "../agents/service";
import type { Db } from "../db/client";
import { pageQuery } from "../db/pagination";
import { type Widget, type WidgetEndedReason, type WidgetSession, type WidgetTurn, widgetSessions, widgets } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { randomBase62 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { type PageParams, pageOf } from "../lib/pagination";
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

async function requireAgent(db: Db, organizationId: string, agentId: string): Promise<void> {
  if (!(await findAgent(db, organizationId, agentId))) throw unknownAgent();
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

/** The agents a widget of this workspace may put on a website (the dashboard's agent picker), by name. */
export const listWidgetAgents = (db: Db, organizationId: string): Promise<Array<{ id: string; name: string }>> =>
  listAgentNames(db, organizationId);

const scoped = (organizationId: string, id: string) => ownedRow(widgets, organizationId, id);

export async function createWidget(db: Db, organizationId: string, input: CreateWidgetInput): Promise<Widget> {
  await requireAgent(db, organizationId, input.agentId);
  const [row] = await whileAgentExists(
    db
      .insert(widgets)
      .values({
        organizationId,
        agentId: input.agentId,
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

export async function getWidget(db: Db, organizationId: string, id: string): Promise<Widget | null> {
  const [row] = await db.select().from(widgets).where(scoped(organizationId, id)).limit(1);
  return row ?? null;
}

export async function listWidgets(db: Db, organizationId: string, params: PageParams & { agentId?: string }) {
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

/** Only the fields sent change; `colors` sub-fields are merged in the UPDATE itself (jsonb ||). */
export async function updateWidget(db: Db, organizationId: string, id: string, input: UpdateWidgetInput): Promise<Widget | null> {
  if (input.agentId) await requireAgent(db, organizationId, input.agentId);
  const { colors, ...rest } = input;
  type Row = typeof widgets.$inferInsert;
  const patch: { [K in keyof Row]?: Row[K] | SQL } = {};
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) Object.assign(patch, { [key]: value });
  if (colors !== undefined) patch.colors = sql`${widgets.colors} || ${JSON.stringify(colors)}::jsonb`;
  const [row] = await whileAgentExists(db.update(widgets).set(patch).where(scoped(organizationId, id)).returning());
  return row ?? null;
}

export async function deleteWidget(db: Db, organizationId: string, id: string): Promise<boolean> {
  const [row] = await db.delete(widgets).where(scoped(organizationId, id)).returning({ id: widgets.id });
  return Boolean(row);
}

/**
 * A new token; the old one stops at once (pages still embedding it go quiet until updated).
 * Also reactivates a revoked widget, under the new token: a revoked token never works again.
 */
export async function rotateWidgetToken(db: Db, organizationId: string, id: string): Promise<Widget | null> {
  const [row] = await db
    .update(widgets)
    .set({ token: newWidgetToken(), tokenRotatedAt: sql`now()`, revokedAt: null })
    .where(scoped(organizationId, id))
    .returning();
  return row ?? null;
}

/** The token stops at once; the widget and its sessions are kept. 409 when already revoked. */
export async function revokeWidget(db: Db, organizationId: string, id: string): Promise<Widget | null> {
  const [row] = await db
    .update(widgets)
    .set({ revokedAt: sql`now()` })
    .where(and(scoped(organizationId, id), isNull(widgets.revokedAt)))
    .returning();
  if (row) return row;
  if (await getWidget(db, organizationId, id)) {
    throw new ApiError("conflict", "The widget is already revoked. Rotate its token to use it again (with a new token).");
  }
  return null;
}

/** The public routes' lookup: an active widget by its token. */
export async function findActiveWidget(db: Db, token: string): Promise<Widget | null> {
  if (!isWidgetTokenShaped(token)) return null;
  const [row] = await db
    .select()
    .from(widgets)
    .where(and(eq(widgets.token, token), isNull(widgets.revokedAt)))
    .limit(1);
  return row ?? null;
}

// Chat sessions (sessions.ts)

/** Inserts a chat session; returns the row. */
export async function insertWidgetSession(db: Db, values: typeof widgetSessions.$inferInsert): Promise<WidgetSession | undefined> {
  const [row] = await db.insert(widgetSessions).values(values).returning();
  return row;
}

/** The visitor's session on the widget: another visitor's or another widget's session is not theirs. */
const visitorsSession = (widgetId: string, visitorId: string, sessionId: string) =>
  and(eq(widgetSessions.id, sessionId), eq(widgetSessions.widgetId, widgetId), eq(widgetSessions.visitorId, visitorId));

/**
 * Appends the visitor's message to their in-progress session in one statement, unless the session
 * would then hold more than `maxTurns`; null when it is not theirs, not in progress, or full.
 */
export async function appendVisitorTurn(
  db: Db,
  widgetId: string,
  visitorId: string,
  sessionId: string,
  message: WidgetTurn,
  maxTurns: number,
): Promise<WidgetSession | null> {
  const [row] = await db
    .update(widgetSessions)
    .set({
      transcript: sql`${widgetSessions.transcript} || ${JSON.stringify([message])}::jsonb`,
      messageCount: sql`${widgetSessions.messageCount} + 1`,
      lastActivityAt: sql`now()`,
    })
    .where(
      and(
        visitorsSession(widgetId, visitorId, sessionId),
        eq(widgetSessions.status, "in-progress"),
        lt(widgetSessions.messageCount, maxTurns - 1),
      ),
    )
    .returning();
  return row ?? null;
}

/** The status of the visitor's session on the widget; null when the session is not theirs. */
export async function visitorSessionStatus(
  db: Db,
  widgetId: string,
  visitorId: string,
  sessionId: string,
): Promise<{ status: WidgetSession["status"] } | null> {
  const [row] = await db
    .select({ status: widgetSessions.status })
    .from(widgetSessions)
    .where(visitorsSession(widgetId, visitorId, sessionId));
  return row ?? null;
}

/** Appends turns to an in-progress session in one statement; nothing when it is over. */
export async function appendSessionTurns(db: Db, sessionId: string, turns: WidgetTurn[]): Promise<void> {
  const toolCalls = turns.filter((t) => t.role === "tool").length;
  await db
    .update(widgetSessions)
    .set({
      transcript: sql`${widgetSessions.transcript} || ${JSON.stringify(turns)}::jsonb`,
      messageCount: sql`${widgetSessions.messageCount} + ${turns.length}`,
      toolCallCount: sql`${widgetSessions.toolCallCount} + ${toolCalls}`,
      lastActivityAt: sql`now()`,
    })
    .where(and(eq(widgetSessions.id, sessionId), eq(widgetSessions.status, "in-progress")));
}

/** Completes an in-progress session in one conditional statement; null when it was already over. */
export async function completeWidgetSession(db: Db, sessionId: string, reason: WidgetEndedReason): Promise<WidgetSession | null> {
  const [row] = await db
    .update(widgetSessions)
    .set({ status: "completed", endedReason: reason, endedAt: sql`now()` })
    .where(and(eq(widgetSessions.id, sessionId), eq(widgetSessions.status, "in-progress")))
    .returning();
  return row ?? null;
}

/** Up to `limit` in-progress sessions without a message for `timeoutSeconds`. */
export async function idleWidgetSessionIds(db: Db, timeoutSeconds: number, limit: number): Promise<Array<{ id: string }>> {
  return db
    .select({ id: widgetSessions.id })
    .from(widgetSessions)
    .where(
      and(
        eq(widgetSessions.status, "in-progress"),
        lt(widgetSessions.lastActivityAt, sql`now() - make_interval(secs => ${timeoutSeconds})`),
      ),
    )
    .limit(limit);
}
