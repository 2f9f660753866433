// Reading calls: a workspace's call, its list with filters, its recording and what it consumed.
// Each operation takes one `{ ctx, input }` (src/services.ts): a `Ctx<"db" | "organizationId">`
// (plus the recordings bucket for a recording) and an object, ids included. Shared by /v1/calls
// and the dashboard; every read is scoped by the organization, and another workspace's call is
// simply not found.
// The call runtime's own statements (state changes, unscoped look-ups) are in ./queries.ts.
import { and, desc, eq, gte, inArray, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import { pageQuery } from "../db/pagination";
import { type Call, calls, usageEvents } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { ApiError } from "../lib/errors";
import { firstIdAt, isUuid } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import type { Ctx, Op } from "../services";
import { servedRecording } from "./recording";
import type { CallStatus } from "./states";

/** The one answer for a missing call and another workspace's call. */
export const callNotFound = () => new ApiError("not_found", "No call with that id in this workspace.");

/** What a call consumed, per modality (successful uses only). */
export interface CallUsage {
  stt: { quantity: number; micro: number };
  chat: { quantity: number; micro: number; promptTokens: number; completionTokens: number };
  tts: { quantity: number; micro: number };
  /** Knowledge retrieval's query embeddings (tokens). */
  embedding: { quantity: number; micro: number };
}

export const emptyUsage = (): CallUsage => ({
  stt: { quantity: 0, micro: 0 },
  chat: { quantity: 0, micro: 0, promptTokens: 0, completionTokens: 0 },
  tts: { quantity: 0, micro: 0 },
  embedding: { quantity: 0, micro: 0 },
});

export interface CallFilters {
  agentId?: string;
  status?: CallStatus;
  direction?: Call["direction"];
  type?: Call["type"];
  /** The dashboard's search: a call id (whole), or digits of its From or To number. */
  search?: string;
}

/** A call as a list shows it: no transcript, the analysis' sentiment and the report's score. */
export type CallSummary = Pick<
  Call,
  | "id"
  | "createdAt"
  | "agentId"
  | "agentName"
  | "type"
  | "direction"
  | "status"
  | "endedReason"
  | "fromNumber"
  | "toNumber"
  | "startedAt"
  | "endedAt"
  | "costMicro"
> & { successScore: number | null; sentiment: string | null };

/** The where-conditions of a filtered page of the workspace's calls. */
function listConditions(organizationId: string, query: PageParams & CallFilters): SQL[] {
  const conditions: SQL[] = [ownedBy(calls, organizationId), ...pageQuery(query).where(calls)];
  if (query.agentId) conditions.push(eq(calls.agentId, query.agentId));
  if (query.status) conditions.push(eq(calls.status, query.status));
  if (query.direction) conditions.push(eq(calls.direction, query.direction));
  if (query.type) conditions.push(eq(calls.type, query.type));
  const search = query.search?.trim() ?? "";
  if (isUuid(search)) conditions.push(eq(calls.id, search.toLowerCase()));
  else if (search !== "") {
    // Digits only (a number is written many ways); nothing to match on finds nothing.
    const digits = search.replace(/\D/g, "");
    const like = `%${digits}%`;
    conditions.push(digits ? sql`(${calls.fromNumber} like ${like} or ${calls.toNumber} like ${like})` : sql`false`);
  }
  return conditions;
}

/** The workspace's call; 404 for a missing one, another workspace's, or an id that is not a UUID. */
export async function getCall({ ctx: { db, organizationId }, input: { id } }: Op<{ id: string }>): Promise<Call> {
  const [row] = isUuid(id)
    ? await db
        .select()
        .from(calls)
        .where(ownedRow(calls, organizationId, id))
    : [];
  if (!row) throw callNotFound();
  return row;
}

/** Newest first, filtered; a page of the workspace's calls. */
export async function listCalls({ ctx: { db, organizationId }, input: query }: Op<PageParams & CallFilters>): Promise<Page<Call>> {
  const limit = pageQuery(query).limit;
  const rows = await db
    .select()
    .from(calls)
    .where(and(...listConditions(organizationId, query)))
    .orderBy(desc(calls.id))
    .limit(limit + 1);
  return pageOf(rows, limit, (row) => row);
}

/** The same page as the dashboard's list and its CSV show it: no transcript is read. */
export async function listCallSummaries({
  ctx: { db, organizationId },
  input: query,
}: Op<PageParams & CallFilters>): Promise<Page<CallSummary>> {
  const limit = pageQuery(query).limit;
  const rows = await db
    .select({
      id: calls.id,
      createdAt: calls.createdAt,
      agentId: calls.agentId,
      agentName: calls.agentName,
      type: calls.type,
      direction: calls.direction,
      status: calls.status,
      endedReason: calls.endedReason,
      fromNumber: calls.fromNumber,
      toNumber: calls.toNumber,
      startedAt: calls.startedAt,
      endedAt: calls.endedAt,
      costMicro: calls.costMicro,
      successScore: sql<number | null>`(${calls.report}->>'successScore')::float8`,
      sentiment: sql<string | null>`${calls.analysis}->>'sentiment'`,
    })
    .from(calls)
    .where(and(...listConditions(organizationId, query)))
    .orderBy(desc(calls.id))
    .limit(limit + 1);
  return pageOf(rows, limit, (row) => ({ ...row, successScore: row.successScore === null ? null : Number(row.successScore) }));
}

/** A call as the Usage screen ranks it: who, when, how long it was connected and what it cost. */
export type CostlyCall = Pick<
  Call,
  "id" | "createdAt" | "agentId" | "agentName" | "type" | "direction" | "status" | "startedAt" | "endedAt" | "costMicro"
>;

/** Where a page of calls by cost resumes: after this call (its cost, then its id, both descending). */
export interface CostCursor {
  costMicro: number;
  id: string;
}

/**
 * The workspace's ended calls made from `since` up to `until` (excluded; no bound when absent),
 * costliest first (then newest), at most `limit`, after `after` when given (the next page). The id
 * bounds (a day wider: the worker's clock made the id, the database's the creation time) keep the
 * scan to the window's part of the (organization, id) index; `created_at` is the rule.
 */
export async function costliestCalls({
  ctx: { db, organizationId },
  input: { since, until, limit, after },
}: Op<{ since: Date; until?: Date; limit: number; after?: CostCursor }>): Promise<CostlyCall[]> {
  const DAY = 86_400_000;
  return db
    .select({
      id: calls.id,
      createdAt: calls.createdAt,
      agentId: calls.agentId,
      agentName: calls.agentName,
      type: calls.type,
      direction: calls.direction,
      status: calls.status,
      startedAt: calls.startedAt,
      endedAt: calls.endedAt,
      costMicro: calls.costMicro,
    })
    .from(calls)
    .where(
      and(
        ownedBy(calls, organizationId),
        gte(calls.id, firstIdAt(since.getTime() - DAY)),
        gte(calls.createdAt, since),
        ...(until ? [lt(calls.id, firstIdAt(until.getTime() + DAY)), lt(calls.createdAt, until)] : []),
        ...(after ? [sql`(${calls.costMicro}, ${calls.id}) < (${after.costMicro}::bigint, ${after.id}::uuid)`] : []),
        isNotNull(calls.endedAt),
      ),
    )
    .orderBy(desc(calls.costMicro), desc(calls.id))
    .limit(limit);
}

/** What each call consumed, from the usage log (successful uses only); calls that used nothing are absent. */
export async function usageOfCalls({ ctx: { db }, input: { callIds } }: Op<{ callIds: string[] }, "db">): Promise<Map<string, CallUsage>> {
  const out = new Map<string, CallUsage>();
  if (callIds.length === 0) return out;
  const rows = await db
    .select({
      callId: usageEvents.callId,
      modality: usageEvents.modality,
      quantity: sql<string>`sum(${usageEvents.quantity})`,
      micro: sql<string>`sum(${usageEvents.costMicro})`,
      promptTokens: sql<string>`coalesce(sum(${usageEvents.promptTokens}), 0)`,
      completionTokens: sql<string>`coalesce(sum(${usageEvents.completionTokens}), 0)`,
    })
    .from(usageEvents)
    .where(and(inArray(usageEvents.callId, callIds), eq(usageEvents.status, 200)))
    .groupBy(usageEvents.callId, usageEvents.modality);
  for (const r of rows) {
    if (!r.callId) continue;
    const u = out.get(r.callId) ?? emptyUsage();
    const line = u[r.modality];
    line.quantity = Number(r.quantity);
    line.micro = Number(r.micro);
    if (r.modality === "chat") {
      u.chat.promptTokens = Number(r.promptTokens);
      u.chat.completionTokens = Number(r.completionTokens);
    }
    out.set(r.callId, u);
  }
  return out;
}

/** The workspace's call with what it consumed (a call's page). */
export async function getCallWithUsage({ ctx, input }: Op<{ id: string }>): Promise<{ call: Call; usage: CallUsage }> {
  const call = await getCall({ ctx, input });
  const usage = await usageOfCalls({ ctx, input: { callIds: [call.id] } });
  return { call, usage: usage.get(call.id) ?? emptyUsage() };
}

/** A page of calls with what each consumed (the API's list). */
export async function listCallsWithUsage({ ctx, input }: Op<PageParams & CallFilters>): Promise<Page<{ call: Call; usage: CallUsage }>> {
  const page = await listCalls({ ctx, input });
  const usage = await usageOfCalls({ ctx, input: { callIds: page.data.map((call) => call.id) } });
  return { ...page, data: page.data.map((call) => ({ call, usage: usage.get(call.id) ?? emptyUsage() })) };
}

/**
 * The workspace's call's recording as served: a 16-bit PCM stereo WAV (stored compressed:
 * src/calls/recording.ts), streamed with its length; null while it has none (or the deployment
 * has no bucket); 404 for a call that is not the workspace's. Each surface says "no recording" in
 * its own words.
 */
export async function getCallRecording({
  ctx,
  input: { id },
}: {
  ctx: Ctx<"db" | "organizationId"> & { recordings: R2Bucket | undefined };
  input: { id: string };
}): Promise<{ body: ReadableStream<Uint8Array>; size: number } | null> {
  const { recordings } = ctx;
  const call = await getCall({ ctx, input: { id } });
  if (!call.recordingKey || !recordings) return null;
  const object = await recordings.get(call.recordingKey);
  if (!object) return null;
  const served = servedRecording(object.body, object.size, object.customMetadata);
  // A fixed length: the response carries Content-Length, and a body that would not match fails.
  const fixed = new FixedLengthStream(served.size);
  served.body.pipeTo(fixed.writable).catch((err: Error) => {
    console.error(JSON.stringify({ level: "error", msg: "recording could not be served", callId: id, error: err.name }));
  });
  return { body: fixed.readable, size: served.size };
}
