// Voices: the system catalog (shared by every workspace, read-only) plus each workspace's own.
// Each operation takes one `{ ctx, input }` (src/services.ts): `ctx` a `Ctx<"db" | "organizationId">`
// (plus `"providers"` for the `available` filter), `input` an object, ids included. Shared by
// /v1/voices, the Models API's TTS, the agents service (an agent's voiceId) and the dashboard.
// The one ownership rule lives here: a
// workspace sees system voices and its own, changes only its own; a system voice is read-only
// (409), another workspace's voice is simply not found (404).
import { and, asc, desc, eq, inArray, isNull, not, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { pageQuery } from "../db/pagination";
import { type Voice, voices } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import { type Page, type PageParams, pageOf } from "../lib/pagination";
import type { Ctx, Op } from "../services";
import { toNewVoiceRow, toVoicePatch } from "./mapper";
import { forgetVoiceSamples, type SampleStore } from "./samples";
import type { CreateVoiceInput, UpdateVoiceInput, VoiceProvider } from "./schema";

export type { Voice };

/** OpenAI's Alloy and Cartesia's Katie, system voices seeded by the migrations (0001, 0015). */
export const ALLOY_VOICE_ID = "00000000-0000-7000-8000-000000000001";
export const KATIE_VOICE_ID = "00000000-0000-7000-8000-000000000012";

/**
 * The voice an agent without one (`voiceId: null`) speaks with: the lowest-latency voice this
 * deployment can synthesize. Cartesia's Sonic starts speaking in about 90 ms against OpenAI speech's
 * 300 or so (docs/benchmarks.md), which is most of what a caller waits for, so Katie when
 * CARTESIA_API_KEY is set, otherwise Alloy (docs/voices.md, "The default voice").
 */
export const defaultVoiceId = (config: { CARTESIA_API_KEY?: string }): string =>
  config.CARTESIA_API_KEY ? KATIE_VOICE_ID : ALLOY_VOICE_ID;

/** The workspace's own voices and the system catalog's (no organization). */
const visibleTo = (organizationId: string): SQL => or(ownedBy(voices, organizationId), isNull(voices.organizationId)) as SQL;

/** The one answer for a missing voice and another workspace's voice. */
export const voiceNotFound = () => new ApiError("not_found", "No voice with that id in this workspace or the system catalog.");

/** What the caller tried to do to a voice it does not own. */
export type VoiceChange = "changed" | "updated" | "deleted";

export const systemVoiceReadOnly = (action: VoiceChange) =>
  new ApiError("read_only", `System voices are shared by every workspace and cannot be ${action}. Create an owned voice instead.`);

/** A voice the workspace can see (system or its own), or null. An id that is not a UUID names no voice. */
export async function findVisibleVoice({ ctx, input: { id } }: Op<{ id: string }>): Promise<Voice | null> {
  if (!isUuid(id)) return null;
  const [row] = await ctx.db
    .select()
    .from(voices)
    .where(and(eq(voices.id, id), visibleTo(ctx.organizationId)))
    .limit(1);
  return row ?? null;
}

/** A voice the workspace can see; 404 otherwise. */
export async function getVoice(args: Op<{ id: string }>): Promise<Voice> {
  const row = await findVisibleVoice(args);
  if (!row) throw voiceNotFound();
  return row;
}

export interface VoiceFilters {
  type?: "system" | "owned";
  provider?: VoiceProvider;
  /** Only voices this deployment can (true) or cannot (false) synthesize now. */
  available?: boolean;
  /** `en` matches en, en-US, en-GB; `en-US` matches en-US and the generic en. */
  language?: string;
}

/**
 * A page of the voices the workspace sees, newest first. The providers this deployment can speak
 * now (`ctx.providers.synthesizable()`, providers/registry.ts) decide the `available` filter.
 */
export async function listVoices({
  ctx,
  input: params,
}: Op<PageParams & VoiceFilters, "db" | "organizationId" | "providers">): Promise<Page<Voice>> {
  const { db, organizationId } = ctx;
  const page = pageQuery(params);
  const conditions: SQL[] = [
    params.type === "system"
      ? isNull(voices.organizationId)
      : params.type === "owned"
        ? ownedBy(voices, organizationId)
        : visibleTo(organizationId),
    ...page.where(voices),
  ];
  if (params.provider) conditions.push(eq(voices.provider, params.provider));
  if (params.available !== undefined) {
    const synthesizable = ctx.providers.synthesizable();
    const speakable = synthesizable.length ? inArray(voices.provider, [...synthesizable]) : sql`false`;
    conditions.push(params.available ? speakable : not(speakable));
  }
  if (params.language) {
    // Tags hold only letters, digits and hyphens (validated), so they are safe in LIKE.
    const tag = params.language;
    conditions.push(
      or(eq(voices.language, tag), sql`${voices.language} like ${`${tag}-%`}`, sql`${tag} like ${voices.language} || '-%'`) as SQL,
    );
  }
  const rows = await db
    .select()
    .from(voices)
    .where(and(...conditions))
    .orderBy(desc(voices.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (row) => row);
}

/** Every voice the workspace sees, by name: the dashboard's catalog and its voice pickers. */
export async function listVoicesByName({ ctx }: { ctx: Ctx<"db" | "organizationId"> }): Promise<Voice[]> {
  return ctx.db.select().from(voices).where(visibleTo(ctx.organizationId)).orderBy(asc(voices.name));
}

export async function createVoice({ ctx, input }: Op<CreateVoiceInput>): Promise<Voice> {
  const [row] = await ctx.db.insert(voices).values(toNewVoiceRow(ctx.organizationId, input)).returning();
  if (!row) throw new Error("insert returned no row");
  return row;
}

/** The ownership rule, after a scoped read or write matched nothing: a system voice is read-only (409), anything else 404. */
async function refuseUnowned(db: Db, id: string, action: VoiceChange): Promise<never> {
  if (!isUuid(id)) throw voiceNotFound();
  const [system] = await db
    .select({ id: voices.id })
    .from(voices)
    .where(and(eq(voices.id, id), isNull(voices.organizationId)))
    .limit(1);
  throw system ? systemVoiceReadOnly(action) : voiceNotFound();
}

/** A voice the workspace may change (its own); otherwise the ownership rule's 409 or 404. */
export async function getOwnedVoice({ ctx: { db, organizationId }, input: { id } }: Op<{ id: string }>): Promise<Voice> {
  const [row] = isUuid(id)
    ? await db
        .select()
        .from(voices)
        .where(ownedRow(voices, organizationId, id))
        .limit(1)
    : [];
  return row ?? refuseUnowned(db, id, "changed");
}

/** A change to a voice: its database, and its kept samples (samples.ts), which follow it. */
interface VoiceWrite<I> {
  ctx: Ctx<"db" | "organizationId" | "providers"> & SampleStore;
  input: I;
}

/**
 * Only the fields sent change; `null` clears gender, previewUrl and description. A kept sample
 * that no longer matches the voice (another provider or provider voice id) is deleted.
 */
export async function updateVoice({ ctx, input: { id, patch } }: VoiceWrite<{ id: string; patch: UpdateVoiceInput }>): Promise<Voice> {
  const { db, organizationId } = ctx;
  const [row] = isUuid(id)
    ? await db
        .update(voices)
        .set(toVoicePatch(patch))
        .where(ownedRow(voices, organizationId, id))
        .returning()
    : [];
  if (!row) return refuseUnowned(db, id, "updated");
  await forgetVoiceSamples({ ctx, input: { voice: row, deleted: false } });
  return row;
}

/** Agents that used the voice keep working with `voiceId: null` (the foreign key sets null); its kept samples go. */
export async function deleteVoice({ ctx, input: { id } }: VoiceWrite<{ id: string }>): Promise<void> {
  const { db, organizationId } = ctx;
  const [row] = isUuid(id)
    ? await db
        .delete(voices)
        .where(ownedRow(voices, organizationId, id))
        .returning({ id: voices.id, provider: voices.provider, providerVoiceId: voices.providerVoiceId })
    : [];
  if (!row) return refuseUnowned(db, id, "deleted");
  await forgetVoiceSamples({ ctx, input: { voice: row, deleted: true } });
}

/**
 * The voice a TTS request names: by id, or (the OpenAI SDK's alias) by provider voice id or
 * name, case-insensitive, the workspace's own voice before a system voice of the same name.
 */
export async function resolveSpeechVoice({ ctx: { db, organizationId }, input: { ref } }: Op<{ ref: string }>): Promise<Voice> {
  const match = isUuid(ref)
    ? eq(voices.id, ref)
    : or(sql`lower(${voices.providerVoiceId}) = lower(${ref})`, sql`lower(${voices.name}) = lower(${ref})`);
  const [voice] = await db
    .select()
    .from(voices)
    .where(and(visibleTo(organizationId), match))
    .orderBy(sql`${voices.organizationId} is null`) // the workspace's own voice first
    .limit(1);
  if (!voice) {
    throw new ApiError("validation_failed", `No voice "${ref}" in this workspace or among the system voices (GET /v1/voices).`, {
      issues: [{ path: "voiceId", message: "unknown voice" }],
    });
  }
  return voice;
}
