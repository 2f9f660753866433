// No hold outlives its request (issue: hardening, "Money"): a settlement that fails after the
// provider answered releases the hold; a hold whose worker died is released by the scheduled
// handler; and for every workspace, credits + open holds + charged usage = what was granted.
// The metering functions run here on the stack's database, the same code the worker runs; the
// scheduled handler and the Models API go through the real worker.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { creditHolds, organizations, usageEvents } from "../../../src/db/schema";
import { parseEnv } from "../../../src/env";
import { adjustCredits, hold, holdLifetimeMs, reconcileCredits, sweepExpiredHolds } from "../../../src/metering/meter";
import { meter, type Payer, startsWithHold } from "../../../src/metering/metered";
import { createWorkspace, json, settled, stack, testDb, type Workspace } from "../../support/harness";

const balance = async (organizationId: string) =>
  Number((await testDb().select({ m: organizations.creditsMicro }).from(organizations).where(eq(organizations.id, organizationId)))[0]?.m);
const openHolds = (organizationId: string) => testDb().select().from(creditHolds).where(eq(creditHolds.organizationId, organizationId));
const events = (organizationId: string) => testDb().select().from(usageEvents).where(eq(usageEvents.organizationId, organizationId));
const payer = (ws: Workspace): Payer => ({
  organizationId: ws.organizationId,
  apiKeyId: ws.apiKeyId,
  method: "POST",
  endpoint: "/v1/llm/chat",
});
const books = async (ws: Workspace) => (await reconcileCredits(testDb(), ws.organizationId))[0];

/** meter() on the stack's database, as the worker runs it, for a chat of `model`; returns its log lines. */
async function meterChat<T>(ws: Workspace, model: string, run: (signal: AbortSignal) => Promise<{ result: T; quantity: number }>) {
  const lines: string[] = [];
  const outcome = await meter(
    testDb(),
    payer(ws),
    { modality: "chat", provider: "sandbox", model, maxQuantity: 5_000 },
    run,
    undefined,
    (line) => lines.push(line),
  ).catch((e: Error) => e);
  return { outcome, log: lines.join("\n") };
}

describe("credit holds", () => {
  it("a settlement that fails after the provider answered releases the hold and keeps the answer", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws.organizationId);
    // A quantity Postgres cannot store (over int4): the settlement's statement fails (22003)
    // after the "provider" answered; the hold must come back and the request still be logged.
    const { outcome: answer, log } = await meterChat(ws, "sandbox-chat", async () => {
      expect(await balance(ws.organizationId)).toBeLessThan(start); // held while the provider works
      return { result: "the provider's answer", quantity: 3_000_000_000 };
    });
    expect(answer).toBe("the provider's answer");
    expect(await balance(ws.organizationId)).toBe(start);
    expect(await openHolds(ws.organizationId)).toEqual([]);
    const [row] = await events(ws.organizationId);
    expect(row).toMatchObject({ status: 200, errorCode: "settlement_failed", costMicro: 0 });
    expect(log).toContain("settlement failed; hold released");
    expect((await books(ws))?.differenceMicro).toBe(0);
  });

  it("releases the whole hold when even the failure's log row cannot be written", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws.organizationId);
    const { outcome: failed, log } = await meterChat(ws, "bad\u0000model", async () => {
      throw new Error("provider exploded");
    });
    expect((failed as Error).message).toBe("provider exploded");
    expect(await balance(ws.organizationId)).toBe(start);
    expect(await openHolds(ws.organizationId)).toEqual([]);
    expect(log).toContain("request log of a failed call not written");
    expect((await books(ws))?.differenceMicro).toBe(0);
  });

  it("a settlement whose log row cannot be written at all is not charged, and the hold is gone", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws.organizationId);
    const { outcome: answer, log } = await meterChat(ws, "bad\u0000model", async () => ({ result: "answered", quantity: 40 }));
    expect(answer).toBe("answered");
    expect(await balance(ws.organizationId)).toBe(start);
    expect(await openHolds(ws.organizationId)).toEqual([]);
    expect(log).toContain("settlement failed; hold released");
  });

  it("starts the provider call alongside the hold only after seeing room, and calls it off when the hold is refused", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws.organizationId);
    // 5,000 tokens of sandbox-chat is the amount held below; the workspace starts with room for many.
    const order: string[] = [];
    const answered = await meterChat(ws, "sandbox-chat", async () => {
      order.push(`run, balance ${await balance(ws.organizationId)}`);
      return { result: "first", quantity: 10 };
    });
    expect(answered.outcome).toBe("first");
    // Unknown to this process before: the provider was called after the hold had taken its amount.
    expect(order[0]).not.toBe(`run, balance ${start}`);
    await settled(ws.organizationId);

    // The money is gone behind this process's back (another worker spent it): the next call starts
    // alongside its hold, the hold is refused, and the provider call is called off, not waited for.
    await adjustCredits(testDb(), ws.organizationId, { setMicro: 0 });
    let signalled: AbortSignal | undefined;
    const refused = await meterChat(ws, "sandbox-chat", (signal) => {
      signalled = signal;
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("called off"))));
    });
    expect(signalled?.aborted).toBe(true);
    expect((refused.outcome as { code?: string }).code).toBe("insufficient_credits");
    expect(await balance(ws.organizationId)).toBe(0);
    expect(await openHolds(ws.organizationId)).toEqual([]);

    // The refusal taught this process the balance: the next call waits for its hold and is never run.
    let ran = false;
    const again = await meterChat(ws, "sandbox-chat", async () => {
      ran = true;
      return { result: "never", quantity: 1 };
    });
    expect((again.outcome as { code?: string }).code).toBe("insufficient_credits");
    expect(ran).toBe(false);
    expect(startsWithHold(ws.organizationId, 1)).toBe(false);
    expect(await books(ws)).toMatchObject({ creditsMicro: 0, heldMicro: 0, differenceMicro: 0 });
  });

  it("the scheduled handler releases a hold whose worker died, once it is older than a provider call can take", async () => {
    const ws = await createWorkspace();
    const start = await balance(ws.organizationId);
    const lost = await hold(testDb(), ws.organizationId, 32_872, "chat sandbox sandbox-chat");
    expect(await balance(ws.organizationId)).toBe(start - 32_872);
    expect((await books(ws))?.differenceMicro).toBe(0); // money in flight is on the books

    // Young: the sweeper leaves it (its call may still be running).
    const config = parseEnv(stack().vars);
    await sweepExpiredHolds(testDb(), holdLifetimeMs(config), () => undefined);
    expect(await openHolds(ws.organizationId)).toHaveLength(1);

    // Its worker died long ago: the cron run of the real worker releases it.
    await testDb()
      .update(creditHolds)
      .set({ createdAt: new Date(Date.now() - holdLifetimeMs(config) - 60_000) })
      .where(eq(creditHolds.id, lost.id));
    const cron = await fetch(`${stack().baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    expect(cron.status).toBe(200);
    await settled(ws.organizationId);
    expect(await balance(ws.organizationId)).toBe(start);
    expect((await books(ws))?.differenceMicro).toBe(0);
  });

  it("the books close through the Models API: successes, refusals, provider failures, top-ups and resets", async () => {
    const ws = await createWorkspace();
    const chat = (model: string, max_tokens = 30) =>
      ws.api("/v1/llm/chat", { method: "POST", json: { model, messages: [{ role: "user", content: "books" }], max_tokens } });
    const statuses = (await Promise.all([chat("sandbox-chat"), chat("sandbox-chat"), chat("fault-500"), chat("sandbox-chat")])).map(
      (r) => r.status,
    );
    expect(statuses.sort()).toEqual([200, 200, 200, 502]);
    await adjustCredits(testDb(), ws.organizationId, { addMicro: 1_500_000 });
    await settled(ws.organizationId);
    expect(await books(ws)).toMatchObject({ heldMicro: 0, differenceMicro: 0 });
    const charged = (await books(ws))?.chargedMicro ?? 0;
    expect(charged).toBeGreaterThan(0);

    // A reset is recorded as the difference it made; a 402 changes nothing.
    await adjustCredits(testDb(), ws.organizationId, { setMicro: 10 });
    const refused = await chat("sandbox-chat", 4_000);
    expect(refused.status).toBe(402);
    expect((await json<{ code: string }>(refused)).code).toBe("insufficient_credits");
    expect(await books(ws)).toMatchObject({ creditsMicro: 10, heldMicro: 0, chargedMicro: charged, differenceMicro: 0 });
  });
});
