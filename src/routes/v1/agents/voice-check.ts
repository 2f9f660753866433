// An agent's voiceId must name a voice the workspace can see: a system voice or its own.
// Another workspace's voice is refused exactly like a missing one.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { voices } from "../../../db/schema";
import { ApiError } from "../../../lib/errors";
import { visibleTo } from "../voices/scope";

const MESSAGE = "no voice with this id in this workspace or the system catalog";

const unusableVoice = () =>
  new ApiError("validation_failed", `Invalid json: voiceId: ${MESSAGE}`, { issues: [{ path: "voiceId", message: MESSAGE }] });

export async function requireUsableVoice(db: Db, organizationId: string, voiceId: string | null | undefined): Promise<void> {
  if (!voiceId) return;
  const [row] = await db
    .select({ id: voices.id })
    .from(voices)
    .where(and(eq(voices.id, voiceId), visibleTo(organizationId)))
    .limit(1);
  if (!row) throw unusableVoice();
}

const isForeignKeyViolation = (err: unknown): boolean => {
  let e: unknown = err;
  for (let i = 0; i < 5 && typeof e === "object" && e !== null; i++) {
    if ((e as { code?: unknown }).code === "23503") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
};

/** The voice was deleted between the check and the write: the same 400 as if it never existed. */
export async function whileVoiceExists<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isForeignKeyViolation(err)) throw unusableVoice();
    throw err;
  }
}
