// Entry point of the Cloudflare Worker. (Workers require the default export.)
import { createApp } from "./app";
import { sweepStaleCalls } from "./calls/watchdog";
import { openScope } from "./db/scope";
import { type Bindings, parseEnv } from "./env";
import { sweepIdleWidgetSessions } from "./widgets/sessions";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  /** Cron trigger (wrangler.toml): the call watchdog's backstop sweep, and idle widget chats ended (widget.completed). */
  async scheduled(_controller, env, ctx) {
    const config = parseEnv(env);
    const scope = openScope(config.DATABASE_URL, config.DATABASE_WS_PROXY);
    const deps = { db: scope.db, config, waitUntil: (p: Promise<unknown>) => scope.defer(p), origin: config.PUBLIC_BASE_URL };
    try {
      // Both run even when one fails; a failure is logged and the next minute tries again.
      const results = await Promise.allSettled([
        sweepStaleCalls(deps),
        sweepIdleWidgetSessions(deps, config.WIDGET_SESSION_TIMEOUT_SECONDS),
      ]);
      for (const r of results) {
        if (r.status === "rejected") console.error(JSON.stringify({ level: "error", msg: "cron sweep failed", error: String(r.reason) }));
      }
    } finally {
      ctx.waitUntil(scope.close());
    }
  },
} satisfies ExportedHandler<Bindings>;

export { CallSession } from "./calls/durable-object";
