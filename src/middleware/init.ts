// Builds the per-request services and c.set()s them. Nothing that holds I/O is kept
// across requests: the database pool is opened on first use (routes such as /health never
// open one) and closed after the response, in ctx.waitUntil.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { createDb, type Db } from "../db/client";
import { parseEnv } from "../env";

export const init = createMiddleware<AppEnv>(async (c, next) => {
  const config = parseEnv(c.env);
  c.set("config", config);
  let opened: ReturnType<typeof createDb> | undefined;
  const lazyDb = new Proxy({} as Db, {
    get(_target, prop) {
      opened ??= createDb(config.DATABASE_URL, config.DATABASE_WS_PROXY);
      const value = Reflect.get(opened.db, prop);
      return typeof value === "function" ? value.bind(opened.db) : value;
    },
  });
  c.set("db", lazyDb);
  try {
    await next();
  } finally {
    if (opened) c.executionCtx.waitUntil(opened.pool.end());
  }
});
