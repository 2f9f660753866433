// The worker's cron run, driven from a test: a sweep run with the dependencies the scheduled
// handler builds (src/worker.ts) on the stack's configuration, and the real trigger, wrangler
// dev's /__scheduled, which runs every sweep of the worker.
import { openScope } from "../../src/db/scope";
import { parseEnv } from "../../src/env";
import { buildServices, type DomainContext } from "../../src/services";
import { stack } from "./harness";

/** Runs `sweep` as the scheduled handler runs its sweeps: in a scope of its own, closed (its deferred work done) after. */
export async function asCronRun<T>(sweep: (deps: DomainContext) => Promise<T>): Promise<T> {
  const config = parseEnv({ ...stack().vars });
  const scope = openScope(config);
  try {
    // Node has no Durable Objects: no sweep reaches a call's (those run in the worker, triggerCron).
    return await sweep(buildServices(scope, config, undefined, {}).webhooks);
  } finally {
    await scope.close();
  }
}

/** The worker's own cron trigger, as Cloudflare fires it every minute (wrangler.toml). */
export const triggerCron = () => fetch(`${stack().baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
