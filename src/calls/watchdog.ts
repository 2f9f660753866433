// The watchdog's backstop, run by the cron trigger: any call still not over a minute after its
// deadline (its Durable Object's alarm should have ended it) is ended here, with its webhook.
import type { Db } from "../db/client";
import type { DomainContext } from "../services";
import { finishCall } from "./lifecycle";
import { findStaleCalls } from "./queries/calls";

const BATCH = 100;

export async function sweepStaleCalls(deps: DomainContext & { db: Db }, slackSeconds = 60): Promise<number> {
  const stale = await findStaleCalls(deps.db, slackSeconds, BATCH);
  let ended = 0;
  for (const call of stale) {
    const reason = call.type === "web" && call.status === "queued" && !call.used ? "web-call-not-joined" : "watchdog-timeout";
    if (await finishCall(deps, call.id, reason)) ended++;
  }
  if (ended > 0) console.log(JSON.stringify({ level: "warn", msg: "watchdog sweep ended stale calls", ended }));
  return ended;
}
