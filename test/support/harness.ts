// Each test makes its own workspace (unkey's testutil/harness.ts): no test depends on
// another's rows or on order. Workspaces are created through the same services the admin CLI
// uses, over the same Neon driver and proxy as the worker.
import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import "../../dev/connect";
import { Redis } from "@upstash/redis/cloudflare";
import { count, eq } from "drizzle-orm";
import { createApiKey, revokeApiKey } from "../../src/api-keys/service";
import { createDb, type Db } from "../../src/db/client";
import { creditHolds } from "../../src/db/schema";
import { addMember, createOrganizationWithAdmin } from "../../src/organizations/service";

export const stack = () => inject("stack");
export const baseUrl = () => stack().baseUrl;

let shared: { db: Db; close: () => Promise<void> } | undefined;
/** A Node-side database handle for setup and assertions (closed by vitest at exit). */
export function testDb(): Db {
  if (!shared) {
    const { db, pool } = createDb(stack().databaseUrl, stack().wsProxy, 4);
    shared = { db, close: () => pool.end() };
  }
  return shared.db;
}

/**
 * Waits until a workspace has no open credit hold: the Models API answers before its
 * settlement is written (docs/models.md), so balances and the request log are read after it.
 */
export async function settled(organizationId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await testDb().select({ n: count() }).from(creditHolds).where(eq(creditHolds.organizationId, organizationId));
    if (Number(row?.n ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error(`workspace ${organizationId} still has ${row?.n} open credit hold(s) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Workspace {
  organizationId: string;
  admin: { id: string; email: string; password: string };
  apiKey: string;
  apiKeyId: string;
  /** fetch against the worker with this workspace's API key. */
  api(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/** fetch against the stack's worker (or the worker at `base`), with a `json` body option. */
export async function request(path: string, init: RequestInit & { json?: unknown } = {}, base = baseUrl()): Promise<Response> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  return fetch(base + path, { ...init, headers, body, redirect: "manual" });
}

/** The workspace's API on another worker of the same database and Redis (a test's own, started with other variables). */
export const onWorker = (ws: Workspace, base: string): Workspace => ({ ...ws, api: apiWith(ws.apiKey, base) });

const apiWith =
  (secret: string, base?: string): Workspace["api"] =>
  (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${secret}`);
    return request(path, { ...init, headers }, base);
  };

export async function createWorkspace(name = "Test workspace"): Promise<Workspace> {
  const db = testDb();
  const email = `admin-${randomUUID()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const { organization, user } = await createOrganizationWithAdmin({ ctx: { db }, input: { organizationName: name, email, password } });
  const { key, secret } = await createApiKey({
    ctx: { db, organizationId: organization.id },
    input: { name: "test", createdByUserId: user.id },
  });
  return {
    organizationId: organization.id,
    admin: { id: user.id, email, password },
    apiKey: secret,
    apiKeyId: key.id,
    api: apiWith(secret),
  };
}

/** Reads until `ok` holds or `ms` pass; returns the last read (the test's assertion then says what was wrong). */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export { clearOfWindowEdge } from "./windows";

/** The stack's key cache (its Upstash bridge), as the worker reaches it. */
export const testRedis = () => new Redis({ url: stack().redisUrl, token: stack().redisToken });

/** A key that was used (so the worker has it cached) and then revoked through the service. */
export async function revokedKey(ws: Workspace): Promise<string> {
  const { key, secret } = await createApiKey({
    ctx: { db: testDb(), organizationId: ws.organizationId },
    input: { name: "to revoke", createdByUserId: ws.admin.id },
  });
  const used = await fetch(`${baseUrl()}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
  if (used.status !== 200) throw new Error(`a fresh key answered ${used.status}`);
  await revokeApiKey({ ctx: { db: testDb(), redis: testRedis(), organizationId: ws.organizationId }, input: { id: key.id } });
  return secret;
}

export async function addMemberTo(ws: Workspace, role: "admin" | "member" = "member") {
  const email = `member-${randomUUID()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const m = await addMember({ ctx: { db: testDb(), organizationId: ws.organizationId }, input: { email, password, role } });
  return { ...m, password };
}

/** Signs in through the real route; returns the cookie header value and the raw token. */
export async function signIn(email: string, password: string): Promise<{ cookie: string; token: string }> {
  const res = await request("/dashboard/api/sign-in", { method: "POST", json: { email, password } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const setCookie = res.headers.get("set-cookie") ?? "";
  const token = /session=([^;]+)/.exec(setCookie)?.[1];
  if (!token) throw new Error("no session cookie");
  return { cookie: `session=${token}`, token };
}

/** Asserts the one error body and returns it. */
export async function expectError(res: Response, status: number, code: string) {
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`expected a JSON error body, got ${res.status}: ${text.slice(0, 200)}`);
  }
  if (res.status !== status || body.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${text.slice(0, 300)}`);
  }
  if (!String(res.headers.get("content-type")).startsWith("application/json")) throw new Error("error without JSON content type");
  const requestId = res.headers.get("x-request-id");
  if (!requestId || body.requestId !== requestId) throw new Error(`requestId mismatch: header ${requestId}, body ${body.requestId}`);
  for (const field of ["statusCode", "error", "code", "message", "requestId"]) {
    if (!(field in body)) throw new Error(`error body lacks ${field}`);
  }
  if (body.statusCode !== status) throw new Error("statusCode differs from the HTTP status");
  return body as {
    statusCode: number;
    error: string;
    code: string;
    message: string;
    requestId: string;
    issues?: Array<{ path: string; message: string }>;
  };
}

/** A response's JSON body, typed by the caller (bodies are `unknown` under workers-types). */
export const json = <T>(res: Response): Promise<T> => res.json() as Promise<T>;
