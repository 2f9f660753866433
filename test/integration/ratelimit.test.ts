// Rate limiting through the real worker with a small limit, and the fail-open choice when
// Redis is unreachable (docs/rate-limits.md).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freePort, startWorker } from "../../dev/stack";
import { createApiKey } from "../../src/api-keys/service";
import { createAgent } from "../support/calls";
import { clearOfWindowEdge, createWorkspace, expectError, stack, testDb } from "../support/harness";

let limited: Awaited<ReturnType<typeof startWorker>>;
let noRedis: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  const vars = stack().vars;
  const closedPort = await freePort(); // nothing listens there
  [limited, noRedis] = await Promise.all([
    startWorker({
      ...vars,
      RATE_LIMIT_REQUESTS: "3",
      RATE_LIMIT_WINDOW: "60 s",
      SIGN_IN_LIMIT_PER_EMAIL: "2",
      SIGN_IN_LIMIT_PER_ADDRESS: "5",
    }),
    startWorker({ ...vars, UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${closedPort}` }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([limited?.stop(), noRedis?.stop()]);
});

/** A client address no earlier run has used: a real Redis keeps counters across runs. */
const freshAddress = () => `2001:db8::${randomUUID().replace(/-/g, "").slice(0, 4)}:${randomUUID().replace(/-/g, "").slice(0, 4)}`;

const me = (base: string, key: string) => fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${key}` } });

describe("rate limit", () => {
  beforeEach(() => clearOfWindowEdge());

  it("allows the limit, then answers 429 with Retry-After and RateLimit headers", async () => {
    const ws = await createWorkspace();
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await me(limited.baseUrl, ws.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=3;w=60');
      remaining.push(res.headers.get("ratelimit") ?? "");
    }
    expect(remaining.map((h) => /r=(\d+)/.exec(h)?.[1])).toEqual(["2", "1", "0"]);

    const res = await me(limited.baseUrl, ws.apiKey);
    const body = await expectError(res, 429, "rate_limited");
    expect(body.error).toBe("Too Many Requests");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
  });

  it("a read that ran alongside the check is refused 429 like any other, its rows not shown", async () => {
    const ws = await createWorkspace();
    await createAgent(ws, { name: "Counted agent" });
    const list = () => fetch(`${limited.baseUrl}/v1/agents`, { headers: { authorization: `Bearer ${ws.apiKey}` } });
    // The key's budget of 3 is shared by every worker: the agent's creation spent one. The first
    // list is checked before its read; the second and third run alongside the check.
    for (let i = 0; i < 2; i++) expect((await list()).status).toBe(200);
    const res = await list();
    const body = await expectError(res, 429, "rate_limited");
    expect(JSON.stringify(body)).not.toContain("Counted agent");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
  });

  it("counts per key: another key of the same workspace, and another workspace, have their own budgets", async () => {
    const a = await createWorkspace();
    for (let i = 0; i < 3; i++) expect((await me(limited.baseUrl, a.apiKey)).status).toBe(200);
    expect((await me(limited.baseUrl, a.apiKey)).status).toBe(429);
    const { secret: sameWorkspace } = await createApiKey({
      ctx: { db: testDb(), organizationId: a.organizationId },
      input: { name: "second", createdByUserId: a.admin.id },
    });
    expect((await me(limited.baseUrl, sameWorkspace)).status).toBe(200);
    const b = await createWorkspace();
    expect((await me(limited.baseUrl, b.apiKey)).status).toBe(200);
  });

  const signInAt = (email: string, password: string, address = freshAddress()) =>
    fetch(`${limited.baseUrl}/dashboard/api/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": address },
      body: JSON.stringify({ email, password }),
    });

  it("counts failed sign-ins, not successes: signing in often never locks out; failures for one email do, before the password is checked", async () => {
    const ws = await createWorkspace();
    const signIn = (password: string, address?: string) => signInAt(ws.admin.email, password, address);
    // More successes than either limit (2 per email, 5 per address), from one address.
    const address = freshAddress();
    for (let i = 0; i < 7; i++) expect((await signIn(ws.admin.password, address)).status).toBe(200);
    expect((await signIn("wrong", address)).status).toBe(401);
    const ok = await signIn(ws.admin.password, address); // one failure of two: still in
    expect(ok.status).toBe(200);
    const cookie = /session=[^;]+/.exec(ok.headers.get("set-cookie") ?? "")?.[0] ?? "";
    expect((await signIn("wrong")).status).toBe(401);

    const locked = await signIn(ws.admin.password); // right password, but two failures for this email
    const body = await expectError(locked, 429, "rate_limited");
    expect(body.message).toBe("Too many failed sign-in attempts for this email address. Try again in 15 minutes.");
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(840); // the first failure leaves the 15 minutes then
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(locked.headers.get("ratelimit-policy")).toBe('"sign-in";q=2;w=900');
    expect(locked.headers.get("ratelimit")).toBe(`"sign-in";r=0;t=${retryAfter}`);

    const session = () => fetch(`${limited.baseUrl}/dashboard/api/session`, { headers: { cookie } });
    for (let i = 0; i < 3; i++) expect((await session()).status).toBe(200);
    await expectError(await session(), 429, "rate_limited");
  });

  it("a burst of wrong passwords in flight together gets no more guesses than the limit", async () => {
    const ws = await createWorkspace();
    const burst = await Promise.all(Array.from({ length: 10 }, () => signInAt(ws.admin.email, "wrong")));
    expect(burst.map((res) => res.status).sort()).toEqual([401, 401, 429, 429, 429, 429, 429, 429, 429, 429]);
  });

  it("over the limit, the sign-in page shows the form again, saying when to retry, with no link back into the dashboard", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 2; i++) expect((await signInAt(ws.admin.email, "wrong")).status).toBe(401);
    const page = await fetch(`${limited.baseUrl}/dashboard/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": freshAddress() },
      body: new URLSearchParams({ email: ws.admin.email, password: ws.admin.password, next: "/dashboard/calls" }),
      redirect: "manual",
    });
    expect(page.status).toBe(429);
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(840);
    expect(page.headers.get("set-cookie")).toBeNull();
    const html = await page.text();
    expect(html).toContain("Too many failed sign-in attempts for this email address. Try again in 15 minutes.");
    expect(html).toMatch(/<form method="post" action="\/dashboard\/sign-in"/);
    expect(html).toContain('value="/dashboard/calls"');
    expect(html).not.toContain('href="/dashboard"');
  });

  it("limits failed sign-ins per client address across emails", async () => {
    const address = freshAddress();
    const attempt = (i: number) => signInAt(`nobody-${i}-${Date.now()}@example.test`, "x", address);
    for (let i = 0; i < 5; i++) expect((await attempt(i)).status).toBe(401);
    const refused = await attempt(5);
    const body = await expectError(refused, 429, "rate_limited");
    expect(body.message).toBe("Too many failed sign-in attempts from your network. Try again in 15 minutes.");
    expect(refused.headers.get("ratelimit-policy")).toBe('"sign-in";q=5;w=900');
  });

  it("does not count requests refused for authentication", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 5; i++) {
      expect((await me(limited.baseUrl, `sk-live-${"y".repeat(40)}`)).status).toBe(401);
    }
    expect((await me(limited.baseUrl, ws.apiKey)).status).toBe(200);
  });

  it("fails open when Redis is unreachable: the request succeeds and says the limiter is unavailable", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 5; i++) {
      const res = await me(noRedis.baseUrl, ws.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-status")).toBe("unavailable");
      expect(res.headers.get("ratelimit")).toBeNull();
    }
  });
});
