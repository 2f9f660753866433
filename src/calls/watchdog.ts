// The watchdog's backstop, run by the cron trigger: any call still not over a minute after its
// deadline (its Durable Object's alarm should have ended it) is ended here, with its webhook.
import { and, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { calls } from "../db/schema";
import type { WebhookDeps } from "../webhooks/deliver";
import { finishCall } from "./lifecycle";
import { ACTIVE_STATUSES } from "./states";

const BATCH = 100;

export async function sweepStaleCalls(deps: WebhookDeps & { db: Db }, slackSeconds = 60): Promise<number> {
  const stale = await deps.db
    .select({ id: calls.id, type: calls.type, status: calls.status, used: calls.sessionTokenUsedAt })
    .from(calls)
    .where(and(inArray(calls.status, ACTIVE_STATUSES), lt(calls.deadlineAt, sql`now() - make_interval(secs => ${slackSeconds})`)))
    .limit(BATCH);
  let ended = 0;
  for (const call of stale) {
    const reason = call.type === "web" && call.status === "queued" && !call.used ? "web-call-not-joined" : "watchdog-timeout";
    if (await finishCall(deps, call.id, reason)) ended++;
  }
  if (ended > 0) console.log(JSON.stringify({ level: "warn", msg: "watchdog sweep ended stale calls", ended }));
  return ended;
}
