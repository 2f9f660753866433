// Dashboard sessions: `sess_` + 40 random base62 characters in an HttpOnly cookie (or as a
// Bearer token with `x-organization-id` on /v1). Only the SHA-256 of the token is stored.
// Sign-in, sign-out, and resolving a token to its user and the workspaces they belong to
// (used by the auth middleware, the dashboard's JSON API and its pages). Each takes one
// `{ ctx, input }` (src/services.ts) whose context is only the database: they run before there is
// an organization.
import { and, eq, gt } from "drizzle-orm";
import { memberships, organizations, type Role, sessions, users } from "../db/schema";
import { randomBase62, sha256Hex, verifyPassword } from "../lib/crypto";
import { newId } from "../lib/ids";
import type { Op } from "../services";

export const SESSION_PREFIX = "sess_";
export const SESSION_COOKIE = "session";

export const isSessionShaped = (token: string): boolean =>
  token.startsWith(SESSION_PREFIX) && /^[0-9A-Za-z]{40}$/.test(token.slice(SESSION_PREFIX.length));

// A fixed hash to verify against when the email is unknown, so both paths cost the same.
const DUMMY_HASH = "pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

export async function signIn({
  ctx: { db },
  input,
}: Op<{ email: string; password: string; ttlHours: number }, "db">): Promise<{ token: string; expiresAt: Date; userId: string } | null> {
  const [user] = await db.select().from(users).where(eq(users.email, input.email.trim().toLowerCase())).limit(1);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) return null;
  const token = SESSION_PREFIX + randomBase62(40);
  const expiresAt = new Date(Date.now() + input.ttlHours * 3600_000);
  await db.insert(sessions).values({ id: newId(), userId: user.id, tokenHash: await sha256Hex(token), expiresAt });
  return { token, expiresAt, userId: user.id };
}

export async function signOut({ ctx, input: { token } }: Op<{ token: string }, "db">): Promise<void> {
  await ctx.db.delete(sessions).where(eq(sessions.tokenHash, await sha256Hex(token)));
}

/** A workspace the user belongs to, with its name (the dashboard's switcher and its session JSON show it). */
export interface SessionMembership {
  organizationId: string;
  organizationName: string;
  role: Role;
}

export interface ResolvedSession {
  sessionId: string;
  user: { id: string; email: string };
  /** Oldest membership first: the default workspace. */
  memberships: SessionMembership[];
}

export async function resolveSession({ ctx: { db }, input: { token } }: Op<{ token: string }, "db">): Promise<ResolvedSession | null> {
  const [row] = await db
    .select({ sessionId: sessions.id, userId: users.id, email: users.email })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, await sha256Hex(token)), gt(sessions.expiresAt, new Date())))
    .limit(1);
  if (!row) return null;
  const orgs = await db
    .select({ organizationId: memberships.organizationId, organizationName: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, row.userId))
    .orderBy(memberships.createdAt);
  return { sessionId: row.sessionId, user: { id: row.userId, email: row.email }, memberships: orgs };
}
