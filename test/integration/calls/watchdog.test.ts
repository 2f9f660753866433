// The watchdog's backstop (the cron trigger's sweep, src/calls/watchdog.ts): a call whose
// session died without ending it is ended with `watchdog-timeout` and its webhook fires.
// (The Durable Object alarm, the first line, is exercised by calls/web.test.ts.)
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sweepStaleCalls } from "../../../src/calls/watchdog";
import { calls } from "../../../src/db/schema";
import { openScope } from "../../../src/db/scope";
import { parseEnv } from "../../../src/env";
import { createAgent, waitForCall } from "../../calls";
import { createWorkspace, json, stack, testDb } from "../../harness";
import { startReceiver } from "../../receiver";
import { createEndpoint } from "../../webhooks";

describe("watchdog sweep", () => {
  it("ends a call stuck in progress past its deadline, once, and fires call.failed", async () => {
    const ws = await createWorkspace();
    const receiver = await startReceiver();
    try {
      await createEndpoint(ws, { url: receiver.url, channels: ["voice"] });
      const agent = await createAgent(ws);
      const { call } = await json<{ call: { id: string } }>(await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }));
      // A session that connected and then vanished: in progress, its deadline two minutes ago.
      await testDb()
        .update(calls)
        .set({ status: "in-progress", startedAt: sql`now() - interval '10 minutes'`, deadlineAt: sql`now() - interval '2 minutes'` })
        .where(eq(calls.id, call.id));
      const { vars } = stack();
      const sweep = async () => {
        const scope = openScope(parseEnv({ ...vars }));
        try {
          return await sweepStaleCalls({ db: scope.db, config: parseEnv({ ...vars }), waitUntil: scope.defer });
        } finally {
          await scope.close();
        }
      };
      expect(await sweep()).toBeGreaterThanOrEqual(1);
      const ended = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
      expect(ended).toMatchObject({ status: "failed", endedReason: "watchdog-timeout", endedReasonCategory: "platform" });
      const [event] = await receiver.waitFor(1);
      expect(JSON.parse(event?.body ?? "{}")).toMatchObject({ event: "call.failed", call: { id: call.id, status: "failed" } });
      // Swept calls are over: a second sweep ends nothing of this workspace and sends nothing.
      await sweep();
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });

  it("runs as the worker's cron trigger (wrangler dev's /__scheduled)", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws);
    const { call } = await json<{ call: { id: string } }>(await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }));
    await testDb()
      .update(calls)
      .set({ status: "in-progress", startedAt: sql`now() - interval '10 minutes'`, deadlineAt: sql`now() - interval '2 minutes'` })
      .where(eq(calls.id, call.id));
    const res = await fetch(`${stack().baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    expect(res.status).toBe(200);
    const ended = await waitForCall(ws, call.id, (c) => c.status !== "in-progress");
    expect(ended).toMatchObject({ status: "failed", endedReason: "watchdog-timeout" });
  });
});
