// Metering: exact under concurrency (this file also runs against real PostgreSQL in the
// integration-real project, where a race would show), exhaustion never goes below zero, and
// provider failures are never charged.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { organizations, usageEvents } from "../../../src/db/schema";
import { costOf } from "../../../src/metering/prices";
import { maxTokensOf } from "../../../src/routes/v1/models/shared";
import { createWorkspace, expectError, json, settled, stack, testDb, type Workspace } from "../../support/harness";

type Completion = { usage: { total_tokens: number } };
const body = (content: string, model = "sandbox-chat") => ({ model, messages: [{ role: "user" as const, content }], max_tokens: 50 });

const balance = async (ws: Workspace) =>
  Number(
    (await testDb().select({ m: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, ws.organizationId)))[0]?.m,
  );
const setBalance = (ws: Workspace, micro: number) =>
  testDb().update(organizations).set({ creditsMicro: micro }).where(eq(organizations.id, ws.organizationId));
const events = (ws: Workspace) => testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId));

let shortTimeout: Awaited<ReturnType<typeof startWorker>>;
beforeAll(async () => {
  shortTimeout = await startWorker({ ...stack().vars, PROVIDER_TIMEOUT_MS: "1500", PROVIDER_RETRIES: "1" });
}, 120_000);
afterAll(() => shortTimeout?.stop());

describe("metering", () => {
  it("charges N parallel successful calls exactly N times their cost", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const n = 20;
    const results = await Promise.all(
      Array.from({ length: n }, () => ws.api("/v1/llm/chat", { method: "POST", json: body("count me once") })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(n).fill(200));
    const tokens = (await json<Completion>(results[0] as Response)).usage.total_tokens;
    const each = costOf("chat", "sandbox-chat", tokens);
    expect(each).toBeGreaterThan(0);
    await settled(ws.organizationId); // the answer does not wait for its settlement
    expect(await balance(ws)).toBe(start - n * each);
    const rows = await events(ws);
    expect(rows).toHaveLength(n);
    expect(rows.every((r) => r.status === 200 && r.costMicro === each && r.quantity === tokens && r.apiKeyId === ws.apiKeyId)).toBe(true);
  });

  it("refuses with 402 before calling the provider when credits cannot cover the call, and logs it", async () => {
    const ws = await createWorkspace();
    const hold = costOf("chat", "sandbox-chat", maxTokensOf({ ...body("too poor"), max_tokens: 50 }));
    await setBalance(ws, hold - 1);
    const err = await expectError(await ws.api("/v1/llm/chat", { method: "POST", json: body("too poor") }), 402, "insufficient_credits");
    expect(err.message).toMatch(/Nothing was charged/);
    expect(await balance(ws)).toBe(hold - 1);
    expect((await events(ws)).map((r) => [r.status, r.errorCode, r.costMicro])).toEqual([[402, "insufficient_credits", 0]]);
  });

  it("never goes below zero when parallel calls exhaust the credits", async () => {
    const ws = await createWorkspace();
    const hold = costOf("chat", "sandbox-chat", maxTokensOf(body("race to the bottom")));
    const initial = Math.floor(hold * 2.5);
    await setBalance(ws, initial);
    const statuses = (
      await Promise.all(Array.from({ length: 12 }, () => ws.api("/v1/llm/chat", { method: "POST", json: body("race to the bottom") })))
    ).map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    await settled(ws.organizationId); // the answer does not wait for its settlement
    const final = await balance(ws);
    expect(final).toBeGreaterThanOrEqual(0);
    const charged = (await events(ws)).reduce((sum, r) => sum + r.costMicro, 0);
    expect(final).toBe(initial - charged);
  });

  it.each([
    ["fault-500", 502, "provider_error"],
    ["fault-429", 429, "provider_rate_limited"],
    ["fault-garbage", 502, "provider_error"],
  ])("a provider answering %s gives %i %s in our body and charges nothing", async (model, status, code) => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const res = await ws.api("/v1/llm/chat", { method: "POST", json: body("fail please", model) });
    const err = await expectError(res, status, code);
    expect(err.message).not.toMatch(/sk-|Bearer/);
    if (status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await balance(ws)).toBe(start);
    expect((await events(ws)).map((r) => [r.status, r.errorCode, r.costMicro])).toEqual([[status, code, 0]]);
  });

  it("a provider that does not answer in time gives 504 provider_timeout and charges nothing", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const res = await fetch(`${shortTimeout.baseUrl}/v1/llm/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body("wait forever", "fault-timeout")),
    });
    await expectError(res, 504, "provider_timeout");
    expect(await balance(ws)).toBe(start);
  });

  it("retries a flaky provider and charges the call once", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws);
    const res = await ws.api("/v1/llm/chat", { method: "POST", json: body(`flaky ${ws.organizationId}`, "fault-flaky-1") });
    expect(res.status).toBe(200);
    const tokens = (await json<Completion>(res)).usage.total_tokens;
    await settled(ws.organizationId); // the answer does not wait for its settlement
    expect(await balance(ws)).toBe(start - costOf("chat", "fault-flaky-1", tokens));
    expect(await events(ws)).toHaveLength(1);
  });

  it("reports usage: credits, totals by day and modality, and the request log", async () => {
    const ws = await createWorkspace();
    for (let i = 0; i < 2; i++) expect((await ws.api("/v1/llm/chat", { method: "POST", json: body(`usage ${i}`) })).status).toBe(200);
    type Usage = {
      credits: { remaining: number; remainingMicro: number };
      totals: Array<{ day: string; modality: string; requests: number; succeeded: number; quantity: number; cost: number }>;
      requests: { data: Array<{ endpoint: string; modality: string }>; hasMore: boolean; nextCursor: string | null };
    };
    await settled(ws.organizationId); // the answer does not wait for its settlement
    const usage = await json<Usage>(await ws.api("/v1/usage?limit=1"));
    expect(usage.credits.remainingMicro).toBe(await balance(ws));
    expect(usage.totals).toEqual([
      expect.objectContaining({ day: new Date().toISOString().slice(0, 10), modality: "chat", requests: 2, succeeded: 2 }),
    ]);
    expect(usage.requests.data).toEqual([expect.objectContaining({ endpoint: "/v1/llm/chat", modality: "chat" })]);
    expect(usage.requests.hasMore).toBe(true);
    const next = await json<Usage>(await ws.api(`/v1/usage?limit=1&cursor=${usage.requests.nextCursor}`));
    expect(next.requests.data).toHaveLength(1);
    expect(next.requests.hasMore).toBe(false);
    await expectError(await ws.api("/v1/usage?days=0"), 400, "validation_failed");
    await expectError(await ws.api("/v1/usage?modality=video"), 400, "validation_failed");
  });
});
