// Organizations and their people. Used by the admin CLI, first-run seeding and the dashboard.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { creditGrants, INITIAL_CREDITS_MICRO, memberships, organizations, type Role, users } from "../db/schema";
import { hashPassword } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";

export async function createOrganizationWithAdmin(
  db: Db,
  input: { organizationName: string; email: string; password: string; userName?: string },
): Promise<{ organization: { id: string; name: string }; user: { id: string; email: string } }> {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const orgId = newId();
    await tx.insert(organizations).values({ id: orgId, name: input.organizationName, creditsMicro: INITIAL_CREDITS_MICRO });
    await tx.insert(creditGrants).values({ organizationId: orgId, amountMicro: INITIAL_CREDITS_MICRO, reason: "initial" });
    const [existing] = await tx.select().from(users).where(eq(users.email, email)).limit(1);
    const userId = existing?.id ?? newId();
    if (!existing) await tx.insert(users).values({ id: userId, email, name: input.userName ?? null, passwordHash });
    await tx.insert(memberships).values({ organizationId: orgId, userId, role: "admin" });
    return { organization: { id: orgId, name: input.organizationName }, user: { id: userId, email } };
  });
}

/** Adds (or re-roles) a user in an organization, creating the user when the email is new. */
export async function addMember(
  db: Db,
  input: { organizationId: string; email: string; password?: string; role: Role },
): Promise<{ userId: string; email: string; role: Role }> {
  const email = input.email.trim().toLowerCase();
  const [org] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, input.organizationId));
  if (!org) throw new ApiError("not_found", "No organization with that id.");
  let [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (!user) {
    if (!input.password) throw new ApiError("validation_failed", "A new user needs a password.");
    [user] = await db
      .insert(users)
      .values({ id: newId(), email, passwordHash: await hashPassword(input.password) })
      .returning({ id: users.id });
  }
  if (!user) throw new Error("insert returned no row");
  await db
    .insert(memberships)
    .values({ organizationId: input.organizationId, userId: user.id, role: input.role })
    .onConflictDoUpdate({ target: [memberships.organizationId, memberships.userId], set: { role: input.role } });
  return { userId: user.id, email, role: input.role };
}
