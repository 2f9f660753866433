// Entry point of the Cloudflare Worker. (Workers require the default export.)
import { createApp } from "./app";
import { sweepStaleCalls } from "./calls/watchdog";
import { openScope } from "./db/scope";
import { type Bindings, parseEnv } from "./env";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  /** Cron trigger (wrangler.toml): the call watchdog's backstop sweep. */
  async scheduled(_controller, env, ctx) {
    const config = parseEnv(env);
    const scope = openScope(config.DATABASE_URL, config.DATABASE_WS_PROXY);
    try {
      await sweepStaleCalls({ db: scope.db, config, waitUntil: (p) => scope.defer(p), origin: config.PUBLIC_BASE_URL });
    } finally {
      ctx.waitUntil(scope.close());
    }
  },
} satisfies ExportedHandler<Bindings>;

export { CallSession } from "./calls/durable-object";
