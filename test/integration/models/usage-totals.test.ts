// GET /v1/usage's totals are read from the usage log's daily totals (usage_daily_stats), which the
// statements that log each use keep: after a mix of Models requests (successful chats, some at once,
// speech, provider failures, 402 refusals, in two workspaces) they equal the log itself summed per
// UTC day, modality and unit, as the report summed it before, with and without a modality filter.
// This file also runs against real PostgreSQL in the integration-real project.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizations, usageEvents } from "../../../src/db/schema";
import { toCredits } from "../../../src/lib/credits";
import { createWorkspace, json, settled, testDb, until, type Workspace } from "../../support/harness";

const ALLOY = "00000000-0000-7000-8000-000000000001";
const chat = (content: string, model = "sandbox-chat") => ({ model, messages: [{ role: "user" as const, content }], max_tokens: 50 });

interface Total {
  day: string;
  modality: string;
  requests: number;
  succeeded: number;
  quantity: number;
  unit: string;
  cost: number;
}

/** The workspace's log summed per UTC day, modality and unit, newest day first, as the API shows it. */
async function summed(ws: Workspace, modality?: string): Promise<Total[]> {
  const date = sql`(${usageEvents.createdAt} at time zone 'UTC')::date`;
  const rows = await testDb()
    .select({
      day: sql<string>`to_char(${date}, 'YYYY-MM-DD')`,
      modality: usageEvents.modality,
      unit: usageEvents.unit,
      requests: sql<number>`count(*)::int`,
      succeeded: sql<number>`(count(*) filter (where ${usageEvents.status} < 400))::int`,
      quantity: sql<string>`coalesce(sum(${usageEvents.quantity}), 0)::bigint`,
      micro: sql<string>`coalesce(sum(${usageEvents.costMicro}), 0)::bigint`,
    })
    .from(usageEvents)
    .where(
      modality
        ? sql`${usageEvents.organizationId} = ${ws.organizationId} and ${usageEvents.modality} = ${modality}`
        : eq(usageEvents.organizationId, ws.organizationId),
    )
    .groupBy(date, usageEvents.modality, usageEvents.unit)
    .orderBy(sql`${date} desc`, usageEvents.modality, usageEvents.unit);
  return rows.map((r) => ({
    day: r.day,
    modality: r.modality,
    requests: Number(r.requests),
    succeeded: Number(r.succeeded),
    quantity: Number(r.quantity),
    unit: r.unit,
    cost: toCredits(Number(r.micro)),
  }));
}

const logged = async (ws: Workspace) =>
  Number(
    (await testDb().select({ n: sql<number>`count(*)` }).from(usageEvents).where(eq(usageEvents.organizationId, ws.organizationId)))[0]?.n,
  );

describe("GET /v1/usage's totals", () => {
  it("equal the usage log summed, after successes, failures and 402s, in each workspace", async () => {
    const [ws, other] = await Promise.all([createWorkspace("Totals"), createWorkspace("Totals, other")]);
    const statuses: number[] = [];
    const send = async (w: Workspace, path: string, body: unknown) => {
      const res = await w.api(path, { method: "POST", json: body });
      await res.arrayBuffer();
      if (w === ws) statuses.push(res.status);
      return res.status;
    };
    // Successful chats, eight at once (they add to the same day's row), and speech.
    expect(await Promise.all(Array.from({ length: 8 }, (_, i) => send(ws, "/v1/llm/chat", chat(`at once ${i}`))))).toEqual(
      Array(8).fill(200),
    );
    expect(await send(ws, "/v1/tts", { voiceId: ALLOY, text: "Totals, spoken: ünïcödé ✓." })).toBe(200);
    expect(await send(ws, "/v1/tts", { voiceId: ALLOY, text: "Again." })).toBe(200);
    // Provider failures: logged, charged nothing.
    expect(await send(ws, "/v1/llm/chat", chat("fail", "fault-500"))).toBe(502);
    expect(await send(ws, "/v1/llm/chat", chat("slow down", "fault-429"))).toBe(429);
    // Another workspace's use.
    expect(await send(other, "/v1/llm/chat", chat("theirs"))).toBe(200);
    await Promise.all([settled(ws.organizationId), settled(other.organizationId)]);
    // Out of credits: refused before any provider call, logged.
    await testDb().update(organizations).set({ creditsMicro: 0 }).where(eq(organizations.id, ws.organizationId));
    expect(await send(ws, "/v1/llm/chat", chat("too poor"))).toBe(402);
    expect(await send(ws, "/v1/tts", { voiceId: ALLOY, text: "Too poor to speak." })).toBe(402);
    await settled(ws.organizationId);
    expect(
      await until(
        () => logged(ws),
        (n) => n === statuses.length,
      ),
    ).toBe(statuses.length);

    const report = await json<{ totals: Total[] }>(await ws.api("/v1/usage?days=7&limit=1"));
    const direct = await summed(ws);
    expect(report.totals).toEqual(direct);
    // Each modality's row has every request of it: 11 chats (8 + 2 failures + a 402), 3 speeches (one a 402).
    expect(direct.reduce((n, t) => n + t.requests, 0)).toBe(statuses.length);
    expect(direct.filter((t) => t.modality === "chat").reduce((n, t) => n + t.requests, 0)).toBe(11);
    expect(direct.filter((t) => t.modality === "chat").reduce((n, t) => n + t.succeeded, 0)).toBe(8);
    expect(direct.filter((t) => t.modality === "tts").reduce((n, t) => n + t.succeeded, 0)).toBe(2);
    expect(direct.every((t) => t.cost > 0 && t.quantity > 0)).toBe(true);
    // Filtered by modality; and the other workspace's totals are its own.
    expect((await json<{ totals: Total[] }>(await ws.api("/v1/usage?modality=tts"))).totals).toEqual(await summed(ws, "tts"));
    expect((await json<{ totals: Total[] }>(await ws.api("/v1/usage?modality=stt"))).totals).toEqual([]);
    const theirs = (await json<{ totals: Total[] }>(await other.api("/v1/usage"))).totals;
    expect(theirs).toEqual(await summed(other));
    expect(theirs.map((t) => [t.modality, t.requests, t.succeeded])).toEqual([["chat", 1, 1]]);
  });
});
