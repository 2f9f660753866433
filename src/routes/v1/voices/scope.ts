// Which voices a workspace sees (system voices plus its own) and which it may change (its own).
import { and, eq, isNull, or, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type Voice, voices } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";

export const visibleTo = (organizationId: string): SQL =>
  or(eq(voices.organizationId, organizationId), isNull(voices.organizationId)) as SQL;

export const ownedBy = (organizationId: string): SQL => eq(voices.organizationId, organizationId);

export const voiceNotFound = () => new ApiError("not_found", "No voice with that id in this workspace or the system catalog.");

export const systemVoiceReadOnly = (action: "updated" | "deleted") =>
  new ApiError("read_only", `System voices are shared by every workspace and cannot be ${action}. Create an owned voice instead.`);

export async function findVisibleVoice(db: Db, organizationId: string, id: string): Promise<Voice | undefined> {
  const [row] = await db
    .select()
    .from(voices)
    .where(and(eq(voices.id, id), visibleTo(organizationId)))
    .limit(1);
  return row;
}

/** After a scoped write matched nothing: a system voice is read-only (409); anything else is 404. */
export async function refuseUnowned(db: Db, id: string, action: "updated" | "deleted"): Promise<never> {
  const [system] = await db
    .select({ id: voices.id })
    .from(voices)
    .where(and(eq(voices.id, id), isNull(voices.organizationId)))
    .limit(1);
  throw system ? systemVoiceReadOnly(action) : voiceNotFound();
}
