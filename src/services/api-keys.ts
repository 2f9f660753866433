// API keys: `sk-live-` + 40 random base62 characters. Only the SHA-256 of the secret and its
// visible prefix are stored; the full secret exists once, in the create response.
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { type ApiKey, apiKeys, memberships, users } from "../db/schema";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { type Page, type PageQuery, pageOf } from "../lib/pagination";

export const API_KEY_PREFIX = "sk-live-";
const SECRET_LENGTH = 40;
const VISIBLE = 8;

export const isApiKeyShaped = (token: string): boolean =>
  token.startsWith(API_KEY_PREFIX) && /^[0-9A-Za-z]{20,100}$/.test(token.slice(API_KEY_PREFIX.length));

export interface ApiKeyView {
  id: string;
  name: string;
  /** Masked: `sk-live-XXXXXXXX…` */
  prefix: string;
  active: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const toApiKeyView = (row: ApiKey): ApiKeyView => ({
  id: row.id,
  name: row.name,
  prefix: `${row.prefix}…`,
  active: row.revokedAt === null,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

export async function createApiKey(
  db: Db,
  input: { organizationId: string; name: string; createdByUserId: string | null },
): Promise<{ key: ApiKeyView; secret: string }> {
  const secret = API_KEY_PREFIX + randomBase62(SECRET_LENGTH);
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId(),
      organizationId: input.organizationId,
      name: input.name,
      prefix: secret.slice(0, API_KEY_PREFIX.length + VISIBLE),
      hash: await sha256Hex(secret),
      createdByUserId: input.createdByUserId,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return { key: toApiKeyView(row), secret };
}

export async function listApiKeys(db: Db, organizationId: string, page: PageQuery): Promise<Page<ApiKeyView>> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.organizationId, organizationId), ...page.where(apiKeys)))
    .orderBy(desc(apiKeys.id))
    .limit(page.limit + 1);
  return pageOf(rows, page.limit, toApiKeyView);
}

/** Soft and final. Revoking twice is a conflict, so a caller learns it was already done. */
export async function revokeApiKey(db: Db, organizationId: string, id: string): Promise<ApiKeyView> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organizationId, organizationId), isNull(apiKeys.revokedAt)))
    .returning();
  if (row) return toApiKeyView(row);
  const [existing] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.organizationId, organizationId)));
  if (existing) throw new ApiError("conflict", "This API key is already revoked; revoked keys cannot be reactivated.");
  throw new ApiError("not_found", "No API key with that id in this workspace.");
}

export interface ResolvedKey {
  keyId: string;
  organizationId: string;
  user: { id: string; email: string } | null;
}

/** Resolves an active key to its organization and the user it acts for (its creator, else an admin). */
export async function resolveApiKey(db: Db, secret: string): Promise<ResolvedKey | null> {
  const hash = await sha256Hex(secret);
  const [row] = await db
    .select({ keyId: apiKeys.id, organizationId: apiKeys.organizationId, userId: users.id, email: users.email })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) return null;
  let user = row.userId && row.email ? { id: row.userId, email: row.email } : null;
  if (!user) {
    const [admin] = await db
      .select({ id: users.id, email: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.organizationId, row.organizationId), eq(memberships.role, "admin")))
      .orderBy(memberships.createdAt)
      .limit(1);
    user = admin ?? null;
  }
  return { keyId: row.keyId, organizationId: row.organizationId, user };
}

export async function touchApiKey(db: Db, keyId: string): Promise<void> {
  await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, keyId));
}
