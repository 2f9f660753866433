// API keys: `sk-live-` + 40 random base62 characters. Only the SHA-256 of the secret and its
// visible prefix are stored; the full secret exists once, in the create response.
//
// The request path verifies a key from Redis, not Postgres (docs/authentication.md): one script
// reads the cached key, checks and counts the rate limit, and records last-used, in one round
// trip. A miss reads Postgres once and fills the cache; revocation writes a tombstone over the
// cached entry before it returns, so every isolate and instance refuses the key on its next request.
//
// Every operation takes one `{ ctx, input }` (src/services.ts): the workspace's operations a
// `Ctx<"db" | "organizationId">` (plus the Redis client where the cache is involved), the request
// path's checks, which run before there is an organization, only `{ db }` or `{ redis }`.
import type { Redis } from "@upstash/redis/cloudflare";
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { PageQuery } from "../db/pagination";
import { type ApiKey, apiKeys, memberships, users } from "../db/schema";
import { ownedBy, ownedRow } from "../db/tenancy";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { type Page, pageOf } from "../lib/pagination";
import { luaScript } from "../lib/redis-script";
import { type LimitResult, SLIDING_WINDOW_LUA, windowCall } from "../ratelimit/sliding-window";
import type { Ctx, Op } from "../services";

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

export const toApiKeyView = (row: ApiKey, recentUse?: Date | null): ApiKeyView => {
  const lastUsed = recentUse && (!row.lastUsedAt || recentUse > row.lastUsedAt) ? recentUse : row.lastUsedAt;
  return {
    id: row.id,
    name: row.name,
    prefix: `${row.prefix}…`,
    active: row.revokedAt === null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: lastUsed?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
};

/** The Redis client, for the operations that read or write the key cache. */
export interface RedisCtx {
  redis: Redis;
}

export async function createApiKey({
  ctx,
  input,
}: Op<{ name: string; createdByUserId: string | null }>): Promise<{ key: ApiKeyView; secret: string }> {
  const secret = API_KEY_PREFIX + randomBase62(SECRET_LENGTH);
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({
      id: newId(),
      organizationId: ctx.organizationId,
      name: input.name,
      prefix: secret.slice(0, API_KEY_PREFIX.length + VISIBLE),
      hash: await sha256Hex(secret),
      createdByUserId: input.createdByUserId,
    })
    .returning();
  if (!row) throw new Error("insert returned no row");
  return { key: toApiKeyView(row), secret };
}

/**
 * A page of the workspace's keys. With `redis`, last-used includes uses not yet flushed to Postgres
 * (the freshest value); without it (an operator's CLI with no Redis configured), Postgres's.
 */
export async function listApiKeys({
  ctx,
  input: page,
}: {
  ctx: Ctx<"db" | "organizationId"> & Partial<RedisCtx>;
  input: PageQuery;
}): Promise<Page<ApiKeyView>> {
  const { db, organizationId, redis } = ctx;
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(ownedBy(apiKeys, organizationId), ...page.where(apiKeys)))
    .orderBy(desc(apiKeys.id))
    .limit(page.limit + 1);
  const recent =
    redis && rows.length > 0
      ? await recentUses(
          redis,
          rows.map((r) => r.hash),
        ).catch(() => new Map())
      : new Map();
  return pageOf(rows, page.limit, (row) => toApiKeyView(row, recent.get(row.hash)));
}

/**
 * Soft and final. Revoking twice is a conflict, so a caller learns it was already done. The
 * cache is told before this returns (a tombstone over the cached key, for every instance); if
 * Redis cannot be reached the key is revoked in Postgres all the same and the call answers 503
 * `cache_unavailable`, so the caller retries until every cache has it (docs/authentication.md).
 */
export async function revokeApiKey({
  ctx,
  input: { id },
}: {
  ctx: Ctx<"db" | "organizationId"> & { redis: Redis | null };
  input: { id: string };
}): Promise<ApiKeyView> {
  const { db, redis, organizationId } = ctx;
  if (!redis) {
    // Refused before anything changes: a revocation that cannot reach the cache is half a revocation.
    throw new ApiError(
      "cache_unavailable",
      "The key cache is not configured here: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN so the revocation reaches every cache. Nothing was changed.",
    );
  }
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(ownedRow(apiKeys, organizationId, id), isNull(apiKeys.revokedAt)))
    .returning();
  const target =
    row ??
    (
      await db
        .select()
        .from(apiKeys)
        .where(ownedRow(apiKeys, organizationId, id))
    )[0];
  if (!target) throw new ApiError("not_found", "No API key with that id in this workspace.");
  await forgetKey(redis, target.hash);
  if (row) return toApiKeyView(row);
  throw new ApiError("conflict", "This API key is already revoked; revoked keys cannot be reactivated.");
}

export interface ResolvedKey {
  keyId: string;
  organizationId: string;
  user: { id: string; email: string } | null;
}

/**
 * Resolves an active key, by the SHA-256 of its secret, to its organization and the user it acts for
 * (its creator, else an admin).
 */
export async function resolveApiKeyByHash({ ctx: { db }, input: { hash } }: Op<{ hash: string }, "db">): Promise<ResolvedKey | null> {
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
      .where(and(ownedBy(memberships, row.organizationId), eq(memberships.role, "admin")))
      .orderBy(memberships.createdAt)
      .limit(1);
    user = admin ?? null;
  }
  return { keyId: row.keyId, organizationId: row.organizationId, user };
}

/** Last-used straight to Postgres: the path when Redis could not be reached. */
export async function touchApiKey({ ctx, input: { keyId } }: Op<{ keyId: string }, "db">): Promise<void> {
  await ctx.db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, keyId));
}

// -- the cache in front of Postgres (Redis) ----------------------------------------------------

/** How long a verified key is served from Redis before Postgres is read again (bounds a stale user). */
export const KEY_CACHE_SECONDS = 300;
/** Tombstones and unknown keys: long enough to outlive any cache fill that raced a revocation. */
const TOMBSTONE_SECONDS = 86_400;
const UNKNOWN_SECONDS = 300;
const REVOKED = "!revoked";
const UNKNOWN = "!unknown";
/** The hash of every key used since the last flush, with the time of its last use (ms). */
export const LAST_USED_KEY = "ak:last-used";
const cacheKey = (hash: string) => `ak:${hash}`;

/** The hot path's one round trip. KEYS: the cached key, this and the previous rate-limit window, last-used.
 *  ARGV: limit, window ms, now ms, hash. The limit is src/ratelimit's sliding window, composed in, and
 *  counted only for keys not known to be bad. */
const VERIFY = luaScript<[string | CachedKey | null, number, number]>(`${SLIDING_WINDOW_LUA}
local cached = redis.call("GET", KEYS[1])
if cached == "${REVOKED}" or cached == "${UNKNOWN}" then return {cached, 0, 0} end
local allowed, remaining = slidingWindow(KEYS[2], KEYS[3], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
if cached then redis.call("HSET", KEYS[4], ARGV[4], ARGV[3]) end
return {cached or false, allowed, remaining}
`);

interface CachedKey {
  k: string;
  o: string;
  u: { id: string; email: string } | null;
}

export type KeyCheck =
  | { status: "valid"; key: ResolvedKey; limit: LimitResult }
  | { status: "invalid"; limit: null }
  /** Not in the cache: read Postgres, then `rememberKey`. The request was counted already. */
  | { status: "miss"; limit: LimitResult };

/**
 * The request path's key check: one Redis round trip reads the cached key, checks and counts the
 * rate limit and records last-used. Throws when Redis fails; the caller then verifies from Postgres.
 */
export async function checkApiKey({
  ctx: { redis },
  input: { hash, policy },
}: {
  ctx: RedisCtx;
  input: { hash: string; policy: { limit: number; windowMs: number } };
}): Promise<KeyCheck> {
  const now = Date.now();
  // The default policy's counters: `rl:key:<hash>:<window index>`.
  const window = windowCall(`rl:key:${hash}`, policy.limit, policy.windowMs, now);
  const keys = [cacheKey(hash), ...window.keys, LAST_USED_KEY];
  const [cached, allowed, remaining] = await VERIFY.run(redis, keys, [...window.args, hash]);
  if (cached === REVOKED || cached === UNKNOWN) return { status: "invalid", limit: null };
  const limit = { success: allowed === 1, remaining: Math.max(0, remaining), reset: window.reset };
  if (!cached) return { status: "miss", limit };
  // The client deserializes JSON replies by default; a client made without that hands back the text.
  const parsed = typeof cached === "string" ? (JSON.parse(cached) as CachedKey) : cached;
  return { status: "valid", key: { keyId: parsed.k, organizationId: parsed.o, user: parsed.u }, limit };
}

/**
 * After a miss: caches what Postgres said (a key, or that it is unknown or revoked) and records
 * the use. SET NX: a revocation's tombstone, written meanwhile, is never overwritten by a fill.
 */
export async function rememberKey({
  ctx,
  input: { hash, key },
}: {
  ctx: RedisCtx;
  input: { hash: string; key: ResolvedKey | null };
}): Promise<void> {
  const p = ctx.redis.pipeline();
  if (key) {
    const value: CachedKey = { k: key.keyId, o: key.organizationId, u: key.user };
    p.set(cacheKey(hash), JSON.stringify(value), { nx: true, ex: KEY_CACHE_SECONDS });
    p.hset(LAST_USED_KEY, { [hash]: String(Date.now()) });
  } else {
    p.set(cacheKey(hash), UNKNOWN, { nx: true, ex: UNKNOWN_SECONDS });
  }
  await p.exec();
}

/** A tombstone over the cached key: every instance refuses it from its next request on. */
async function forgetKey(redis: Redis, hash: string): Promise<void> {
  try {
    await redis.set(cacheKey(hash), REVOKED, { ex: TOMBSTONE_SECONDS });
  } catch {
    throw new ApiError(
      "cache_unavailable",
      "The key is revoked in the database, but the key cache could not be reached to refuse it everywhere. Retry the revocation until it succeeds.",
    );
  }
}

/** Last uses recorded in Redis and not yet flushed, by key hash. */
async function recentUses(redis: Redis, hashes: string[]): Promise<Map<string, Date>> {
  const values = (await redis.hmget(LAST_USED_KEY, ...hashes)) as Record<string, unknown> | null;
  const out = new Map<string, Date>();
  for (const [hash, ms] of Object.entries(values ?? {})) {
    if (ms !== null && ms !== undefined && Number.isFinite(Number(ms))) out.set(hash, new Date(Number(ms)));
  }
  return out;
}

/** Takes the recorded uses atomically (read and delete), so a use recorded meanwhile waits for the next flush. */
const TAKE_SCRIPT = `local v = redis.call("HGETALL", KEYS[1]) redis.call("DEL", KEYS[1]) return v`;
/** Puts uses back after a failed flush, keeping the newer of two times. */
const RESTORE_SCRIPT = `
for i = 1, #ARGV, 2 do
  local old = tonumber(redis.call("HGET", KEYS[1], ARGV[i]) or "0")
  if tonumber(ARGV[i + 1]) > old then redis.call("HSET", KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`;

/**
 * The scheduled handler's flush of last-used from Redis to Postgres (once a minute): one UPDATE
 * for every key used since the last flush, never moving a time backwards. Returns how many keys.
 */
export async function flushLastUsed({ ctx: { db, redis } }: { ctx: Ctx<"db"> & RedisCtx }): Promise<number> {
  const flat = (await redis.eval(TAKE_SCRIPT, [LAST_USED_KEY], [])) as string[];
  if (!flat || flat.length === 0) return 0;
  const entries: Array<[string, number]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push([String(flat[i]), Number(flat[i + 1])]);
  try {
    const hashes = entries.map(([h]) => h);
    const times = entries.map(([, ms]) => new Date(ms).toISOString());
    await db
      .update(apiKeys)
      .set({ lastUsedAt: sql`greatest(${apiKeys.lastUsedAt}, u.at)` })
      .from(sql`unnest(${sql.param(hashes)}::text[], ${sql.param(times)}::timestamptz[]) as u(hash, at)`)
      .where(and(eq(apiKeys.hash, sql`u.hash`), inArray(apiKeys.hash, hashes)));
  } catch (err) {
    await redis.eval(RESTORE_SCRIPT, [LAST_USED_KEY], entries.flat().map(String));
    throw err;
  }
  return entries.length;
}
