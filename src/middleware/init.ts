// Builds the per-request services and c.set()s them (unkey's pkg/middleware/init.ts pattern):
// the parsed configuration, the services' dependencies (src/services.ts), and a request scope whose database pool is opened on first use
// (routes such as /health never open one) and closed after the response and any deferred work.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { openScope } from "../db/scope";
import { parseEnv } from "../env";
import { buildServices } from "../services";

export const init = createMiddleware<AppEnv>(async (c, next) => {
  const config = parseEnv(c.env);
  c.set("config", config);
  const scope = openScope(config);
  c.set("db", scope.db);
  c.set("defer", scope.defer);
  c.set("services", buildServices(scope, config, new URL(c.req.url).origin, c.env));
  try {
    await next();
  } finally {
    c.executionCtx.waitUntil(scope.close());
  }
});
