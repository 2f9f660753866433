// Organizations and their members. Used by the admin CLI, first-run seeding and the dashboard's
// Members screen. Each operation takes one `{ ctx, input }` (src/services.ts): creating an
// organization only `{ db }`, a workspace's member operations a `Ctx<"db" | "organizationId">`
// (and the actor, who may not change their own role). Every member query is scoped by the
// organization; another workspace's member is simply not found.
import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { creditGrants, INITIAL_CREDITS_MICRO, memberships, organizations, type Role, users } from "../db/schema";
import { ownedBy } from "../db/tenancy";
import { hashPassword, randomBase62 } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { isUuid, newId } from "../lib/ids";
import type { Ctx, Op } from "../services";

export async function createOrganizationWithAdmin({
  ctx: { db },
  input,
}: Op<{ organizationName: string; email: string; password: string; userName?: string }, "db">): Promise<{
  organization: { id: string; name: string };
  user: { id: string; email: string };
}> {
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
export async function addMember({
  ctx,
  input,
}: Op<{ email: string; password?: string; role: Role }>): Promise<{ userId: string; email: string; role: Role }> {
  const { userId, email, role } = await joinOrganization(ctx.db, { ...input, organizationId: ctx.organizationId });
  return { userId, email, role };
}

/** `addMember`, saying whether the user was created (and so got `input.password`). */
async function joinOrganization(
  db: Db,
  input: { organizationId: string; email: string; password?: string; role: Role },
): Promise<{ userId: string; email: string; role: Role; created: boolean }> {
  const email = input.email.trim().toLowerCase();
  const [org] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, input.organizationId));
  if (!org) throw new ApiError("not_found", "No organization with that id.");
  let [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  const created = !user;
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
  return { userId: user.id, email, role: input.role, created };
}

// -- members of a workspace (the dashboard's Members screen) ------------------------------------

export interface Member {
  userId: string;
  email: string;
  role: Role;
  /** When they joined this workspace. */
  since: Date;
}

/** The one answer for an unknown user and another workspace's member. */
export const memberNotFound = () => new ApiError("not_found", "No such member in this workspace.");

/** Everyone in the workspace, oldest member first. */
export async function listMembers({ ctx }: { ctx: Ctx<"db" | "organizationId"> }): Promise<Member[]> {
  return ctx.db
    .select({ userId: users.id, email: users.email, role: memberships.role, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(ownedBy(memberships, ctx.organizationId))
    .orderBy(memberships.createdAt);
}

/** Three groups of six base62 characters: easy to pass on, 107 bits. */
const oneTimePassword = () => `${randomBase62(6)}-${randomBase62(6)}-${randomBase62(6)}`;

/**
 * Invites by email (there is no email delivery yet): an existing account joins the workspace, or
 * changes role if it is in it already; a new address gets an account with a one-time password,
 * returned here once for the inviting admin to pass on (`password` is null for an existing account).
 */
export async function inviteMember({
  ctx,
  input,
}: Op<{ email: string; role: Role }>): Promise<{ email: string; role: Role; password: string | null }> {
  const password = oneTimePassword();
  const member = await joinOrganization(ctx.db, { ...input, organizationId: ctx.organizationId, password });
  return { email: member.email, role: member.role, password: member.created ? password : null };
}

/**
 * Changes a member's role. Nobody changes their own (an admin cannot demote themselves by a slip):
 * a 400 on the `role` field, when the actor is that user. 404 for a user who is not a member of
 * this workspace.
 */
export async function changeMemberRole({
  ctx,
  input,
}: Op<{ userId: string; role: Role }, "db" | "organizationId" | "actor">): Promise<void> {
  if (!isUuid(input.userId)) throw memberNotFound();
  if (ctx.actor.type === "user" && input.userId === ctx.actor.id) {
    throw new ApiError("validation_failed", "Invalid form: role: you cannot change your own role", {
      issues: [{ path: "role", message: "you cannot change your own role" }],
    });
  }
  const [row] = await ctx.db
    .update(memberships)
    .set({ role: input.role })
    .where(and(ownedBy(memberships, ctx.organizationId), eq(memberships.userId, input.userId)))
    .returning({ userId: memberships.userId });
  if (!row) throw memberNotFound();
}

/** The workspace's calls in flight and the most it may have at once (docs/campaigns.md, "Calls in flight"). */
export async function getConcurrency({
  ctx,
}: {
  ctx: Ctx<"db" | "organizationId">;
}): Promise<{ callsInFlight: number; maxCallsInFlight: number }> {
  const [row] = await ctx.db
    .select({ callsInFlight: organizations.callsInFlight, maxCallsInFlight: organizations.maxCallsInFlight })
    .from(organizations)
    .where(eq(organizations.id, ctx.organizationId));
  if (!row) throw new ApiError("not_found", "No such workspace.");
  return row;
}
