// Entry point of the Cloudflare Worker. (Workers require the default export.)

import { endStaleRuns } from "./agent-tests/service";
import { flushLastUsed } from "./api-keys/service";
import { createApp } from "./app";
import { sweepStaleCalls } from "./calls/watchdog";
import { wakeRunningCampaigns } from "./campaigns/runner/backstop";
import { sweepIdleChats } from "./chats/runtime";
import { openScope } from "./db/scope";
import { type Bindings, parseEnv } from "./env";
import { sweepStalledDocuments } from "./knowledge/stale";
import { redisFor } from "./lib/redis";
import { sweepInbound } from "./messaging/inbound";
import { holdLifetimeMs, sweepExpiredHolds } from "./metering/meter";
import { buildServices } from "./services";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  /**
   * Cron trigger (wrangler.toml), every minute: the call watchdog's backstop sweep, idle widget chats
   * ended (widget.completed), API keys' last-used moved from Redis to Postgres, and credit holds
   * whose worker died released (older than the longest a provider call may take), idle messaging
   * conversations ended (`<type>.completed`), inbound messages left unanswered answered, and
   * running campaigns' runners woken (a lost alarm costs a minute, nothing more), and agent test
   * runs whose worker stopped ended with the reason, and knowledge documents whose processing
   * stalled started again (or failed after a few tries).
   */
  async scheduled(_controller, env, ctx) {
    const config = parseEnv(env);
    const scope = openScope(config);
    const services = buildServices(scope, config, undefined, env);
    const deps = services.webhooks;
    try {
      // All run even when one fails; a failure is logged and the next minute tries again.
      const results = await Promise.allSettled([
        sweepStaleCalls(deps),
        sweepIdleChats(deps, config.WIDGET_SESSION_TIMEOUT_SECONDS),
        flushLastUsed({ ctx: { db: scope.db, redis: redisFor(config) } }),
        sweepExpiredHolds(scope.db, holdLifetimeMs(config)),
        sweepInbound(deps),
        wakeRunningCampaigns(deps),
        endStaleRuns(deps),
        sweepStalledDocuments({ ...deps, knowledgeBucket: services.knowledgeBucket }),
      ]);
      for (const r of results) {
        if (r.status === "rejected") console.error(JSON.stringify({ level: "error", msg: "cron sweep failed", error: String(r.reason) }));
      }
    } finally {
      ctx.waitUntil(scope.close());
    }
  },
} satisfies ExportedHandler<Bindings>;

export { TestRunner } from "./agent-tests/runner/durable-object";
export { CallSession } from "./calls/durable-object";
export { CampaignRunner } from "./campaigns/runner/durable-object";
