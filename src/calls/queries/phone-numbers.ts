// Every statement about a workspace's phone numbers (caller ids, and the agent each inbound number
// goes to), for src/calls/phone-numbers.ts and the inbound call's look-up of its number.
import { and, asc, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pageQuery } from "../../db/pagination";
import { type Agent, agents, type PhoneNumber, phoneNumbers } from "../../db/schema";
import { ownedBy, ownedRow } from "../../db/tenancy";
import { type Page, type PageParams, pageOf } from "../../lib/pagination";

/** Which workspace holds `number`, of all of them (a number belongs to one workspace). */
export async function findNumberHolder(db: Db, number: string): Promise<{ organizationId: string } | undefined> {
  const [row] = await db.select({ organizationId: phoneNumbers.organizationId }).from(phoneNumbers).where(eq(phoneNumbers.number, number));
  return row;
}

/**
 * Adds a number to the workspace: nothing when another request added it first (the unique index on
 * the number decided). A deleted agent fails with Postgres's foreign key violation (23503).
 */
export async function insertPhoneNumber(
  db: Db,
  organizationId: string,
  input: { number: string; label?: string | null; agentId: string | null },
): Promise<PhoneNumber | undefined> {
  const [row] = await db
    .insert(phoneNumbers)
    .values({ organizationId, number: input.number, label: input.label, agentId: input.agentId })
    .onConflictDoNothing()
    .returning();
  return row;
}

/** The workspace's numbers, oldest first (its default caller id first). */
export async function listCallerIds(db: Db, organizationId: string): Promise<{ id: string; number: string }[]> {
  return await db
    .select({ id: phoneNumbers.id, number: phoneNumbers.number })
    .from(phoneNumbers)
    .where(ownedBy(phoneNumbers, organizationId))
    .orderBy(asc(phoneNumbers.id));
}

/** A page of the workspace's numbers, newest first. */
export async function pageOfPhoneNumbers(db: Db, organizationId: string, params: PageParams): Promise<Page<PhoneNumber>> {
  const page = pageQuery(params);
  const rows = await db
    .select()
    .from(phoneNumbers)
    .where(and(ownedBy(phoneNumbers, organizationId), ...page.where(phoneNumbers)))
    .orderBy(desc(phoneNumbers.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, (row) => row);
}

/** One of the workspace's numbers (none for another workspace's). */
export async function findPhoneNumber(db: Db, organizationId: string, id: string): Promise<PhoneNumber | undefined> {
  const [row] = await db
    .select()
    .from(phoneNumbers)
    .where(ownedRow(phoneNumbers, organizationId, id));
  return row;
}

/** Changes the label or agent given (an absent field is kept); nothing when the workspace has no such number. */
export async function updatePhoneNumberRow(
  db: Db,
  organizationId: string,
  id: string,
  input: { label?: string | null; agentId?: string | null },
): Promise<PhoneNumber | undefined> {
  const [row] = await db
    .update(phoneNumbers)
    .set({
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.agentId !== undefined ? { agentId: input.agentId } : {}),
    })
    .where(ownedRow(phoneNumbers, organizationId, id))
    .returning();
  return row;
}

/** Removes one of the workspace's numbers; false when it has no such number. */
export async function deletePhoneNumber(db: Db, organizationId: string, id: string): Promise<boolean> {
  const [row] = await db
    .delete(phoneNumbers)
    .where(ownedRow(phoneNumbers, organizationId, id))
    .returning({ id: phoneNumbers.id });
  return Boolean(row);
}

/** The workspace number a call to `number` reached, with the agent assigned to answer it (any workspace: the carrier's webhook). */
export async function numberForIncomingCall(db: Db, number: string): Promise<{ number: PhoneNumber; agent: Agent | null } | null> {
  const [row] = await db
    .select({ number: phoneNumbers, agent: agents })
    .from(phoneNumbers)
    // Column to column (the agent must be of the number's workspace): tenancy's helpers take an id.
    .leftJoin(agents, and(eq(agents.id, phoneNumbers.agentId), eq(agents.organizationId, phoneNumbers.organizationId)))
    .where(eq(phoneNumbers.number, number));
  return row ?? null;
}
