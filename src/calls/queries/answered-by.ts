// Answering-machine detection's verdict on a call (calls.answered_by): written once, the first
// verdict the carrier sends (a redelivered callback changes nothing).
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type AnsweredBy, calls } from "../../db/schema";

/** True when this verdict was the call's first (and is now stored). */
export async function saveAnsweredBy(db: Db, callId: string, answeredBy: AnsweredBy): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({ answeredBy })
    .where(and(eq(calls.id, callId), isNull(calls.answeredBy)))
    .returning({ id: calls.id });
  return rows.length > 0;
}
