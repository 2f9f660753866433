// A bench-only worker for comparing database connection strategies on the same routes.
// It composes the app's own pieces (request id, middleware, auth, rate limit, /v1 routes) in
// the order src/app.ts does, except for the one middleware under test, chosen per request
// with the `x-bench-db` header:
//   http         src/middleware/init.ts as it is: a request scope (src/db/scope.ts) whose
//                statements go over SQL over HTTP (neon() + drizzle neon-http), nothing to
//                open or close; a Pool only for the length of an interactive transaction
//   pool         the previous init.ts + scope.ts: a neon Pool (max 1) per request, opened on
//                first use, closed once the response and the work handed to `defer` settled
//   client       a neon Client per request (connect on first query), closed once the
//                response and every waitUntil/defer task of the request have settled
//   pool-early   the first version of init.ts: Pool (max 1) per request, pool.end() in
//                waitUntil right after the response, `defer` is plain waitUntil
// `x-bench-proxy: dev` sends the request's database traffic through BENCH_DEV_WS_PROXY
// (dev/ws-proxy.ts itself) and BENCH_DEV_HTTP_ENDPOINT (dev/sql-http.ts itself) instead of
// DATABASE_WS_PROXY and DATABASE_HTTP_ENDPOINT (the bench's counting proxy and forwarder).
// POST /bench/deferred checks database work done after the response; GET /bench/subrequest is
// one bare round trip to the Upstash endpoint, the routes part's floor for a route with one (GET
// /bench/subrequests2: that, then one to the SQL-over-HTTP endpoint, for a route with two); POST /bench/provider
// forwards a chat completion to the provider bare, the Models part's floor. Errors are logged with
// their cause chain, so the bench can say why a strategy fails. Never deployed; started by
// bench/strategies/launch.ts.
import { Client, Pool } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/neon-serverless";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { type AppEnv, createRouter } from "../../src/context";
import { configureNeon, type Db } from "../../src/db/client";
import * as schema from "../../src/db/schema";
import { type Bindings, parseEnv } from "../../src/env";
import { mapLimit } from "../../src/lib/concurrency";
import { handleError } from "../../src/lib/errors";
import { newId } from "../../src/lib/ids";
import { guardInput } from "../../src/middleware/guards";
import { init as appInit } from "../../src/middleware/init";
import { v1Routes } from "../../src/routes/v1";
import { emit } from "../../src/webhooks/deliver";
import { testEventData } from "../../src/webhooks/test-payloads";

export const STRATEGIES = ["http", "pool", "client", "pool-early"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** The execution context handed to the app: it remembers every waitUntil promise. */
class TrackingContext implements ExecutionContext {
  readonly pending: Promise<unknown>[] = [];
  constructor(private readonly inner: ExecutionContext) {}
  waitUntil(promise: Promise<unknown>): void {
    this.pending.push(promise);
    this.inner.waitUntil(promise);
  }
  passThroughOnException(): void {
    this.inner.passThroughOnException();
  }
  get props(): unknown {
    return this.inner.props;
  }
  get tracing(): ExecutionContext["tracing"] {
    return this.inner.tracing;
  }
  /** Runs `task` once every waitUntil task, including ones added meanwhile, has settled. */
  afterAll(task: () => Promise<unknown> | undefined): void {
    const settled = async () => {
      let seen = 0;
      while (seen < this.pending.length) {
        const batch = this.pending.slice(seen);
        seen = this.pending.length;
        await Promise.allSettled(batch);
      }
    };
    // On the inner context: a task tracked here would wait for itself.
    this.inner.waitUntil(
      settled()
        .then(task)
        .catch(() => undefined),
    );
  }
}

type Opened = { db: Db; close(): Promise<void> };

/**
 * A lazily opened connection per request; `closeAfter` says when it closes: right after the
 * response, after the work handed to `defer` (the previous src/db/scope.ts), or after every
 * waitUntil task of the request.
 */
const customInit = (open: (url: string) => Opened, closeAfter: "response" | "deferred" | "all-work") =>
  createMiddleware<AppEnv>(async (c, next) => {
    const config = parseEnv(c.env);
    c.set("config", config);
    let opened: Opened | undefined;
    const lazyDb = new Proxy({} as Db, {
      get(_target, prop) {
        if (!opened) {
          configureNeon(config);
          opened = open(config.DATABASE_URL);
        }
        const value = Reflect.get(opened.db, prop);
        return typeof value === "function" ? value.bind(opened.db) : value;
      },
    });
    c.set("db", lazyDb);
    const ctx = c.executionCtx as TrackingContext;
    const deferred: Promise<unknown>[] = [];
    c.set("defer", (work) => {
      if (closeAfter === "deferred") deferred.push(work.catch(logBackground));
      else ctx.waitUntil(work.catch(logBackground));
    });
    try {
      await next();
    } finally {
      if (closeAfter === "response") {
        if (opened) ctx.waitUntil(opened.close());
      } else if (closeAfter === "deferred") {
        ctx.waitUntil(
          (async () => {
            while (deferred.length > 0) await Promise.allSettled(deferred.splice(0));
            await opened?.close();
          })(),
        );
      } else ctx.afterAll(() => opened?.close());
    }
  });

const logBackground = (err: unknown) =>
  console.error(JSON.stringify({ level: "bench-error", message: "background work failed", causes: causesOf(err) }));

const openPool = (url: string): Opened => {
  const pool = new Pool({ connectionString: url, max: 1 });
  return { db: drizzle({ client: pool, schema }), close: () => pool.end() };
};

const openClient = (url: string): Opened => {
  const client = new Client(url);
  // Queries issued before the handshake completes wait in the client's queue.
  const connecting = client.connect().catch(() => undefined);
  return {
    db: drizzle({ client, schema }) as unknown as Db,
    close: async () => {
      await connecting;
      await client.end();
    },
  };
};

const middlewares: Record<Strategy, ReturnType<typeof createMiddleware<AppEnv>>> = {
  // neonConfig is global to the isolate and the app's HTTP database reads its fetchEndpoint when
  // a statement runs: set it per request, so the counting and the control rows (which run one at
  // a time) each reach their own endpoint.
  http: createMiddleware<AppEnv>(async (c, next) => {
    configureNeon(parseEnv(c.env));
    return appInit(c, next);
  }),
  pool: customInit(openPool, "deferred"),
  client: customInit(openClient, "all-work"),
  "pool-early": customInit(openPool, "response"),
};

const strategyOf = (c: Context<AppEnv>): Strategy => {
  const name = c.req.header("x-bench-db") as Strategy | undefined;
  return name && STRATEGIES.includes(name) ? name : "http";
};

function causesOf(err: unknown): string[] {
  const causes: string[] = [];
  for (let e: unknown = err; e instanceof Error && causes.length < 5; e = e.cause) {
    causes.push(`${e.name}: ${e.message.split("\n")[0]?.slice(0, 120)}`);
  }
  return causes;
}

const app = createRouter();

app.onError((err, c) => {
  const [message, ...causes] = causesOf(err);
  console.error(JSON.stringify({ level: "bench-error", strategy: strategyOf(c), message, causes }));
  return handleError(err, c);
});
app.use("*", requestId({ generator: newId, headerName: "X-Request-Id" }));
app.use("*", secureHeaders({ crossOriginResourcePolicy: false }));
app.use("*", (c, next) => middlewares[strategyOf(c)](c, next));
app.get("/health", (c) => c.json({ status: "ok" }));
// The floor of a route that makes one round trip: one bare fetch() to the Upstash REST endpoint
// (PING), no client library, no key, no database. The routes part measures it next to /health.
app.get("/bench/subrequest", async (c) => {
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = c.var.config;
  const res = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: '["PING"]' });
  await res.arrayBuffer();
  return c.json({ status: res.ok ? "ok" : "failed" }, res.ok ? 200 : 502);
});

// The floor of a route that makes two round trips one after the other, as GET /v1/agents does
// (the key and rate limit in Redis, then one statement): the PING above, then `select 1` POSTed
// bare to the SQL-over-HTTP endpoint the app's statements go to (Neon's wire format).
app.get("/bench/subrequests2", async (c) => {
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token, DATABASE_HTTP_ENDPOINT: sqlUrl, DATABASE_URL } = c.var.config;
  const ping = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: '["PING"]' });
  await ping.arrayBuffer();
  const select = await fetch(sqlUrl ?? "", {
    method: "POST",
    headers: {
      "neon-connection-string": DATABASE_URL,
      "neon-raw-text-output": "true",
      "neon-array-mode": "true",
      "content-type": "application/json",
    },
    body: '{"query":"select 1","params":[]}',
  });
  await select.arrayBuffer();
  const ok = ping.ok && select.ok;
  return c.json({ status: ok ? "ok" : "failed" }, ok ? 200 : 502);
});

// The floor of a Models call: the request body forwarded to the provider's chat completions as it
// came, the answer returned as it came; no key check, no hold, no settlement. The Models part
// measures it beside ours and the provider called directly, so what a worker route costs around a
// long provider wait on this machine is not counted as the platform's.
app.post("/bench/provider", async (c) => {
  const { OPENAI_BASE_URL: base, OPENAI_API_KEY: key } = c.var.config;
  const res = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key ?? ""}`, "content-type": "application/json" },
    body: await c.req.text(),
  });
  return c.json(await res.json(), res.ok ? 200 : 502);
});

// Work after the response, the shape of a direct-mode webhook fan-out (src/webhooks/deliver.ts,
// trigger "emit"): the request queries and answers; the work it hands on sleeps (there: waits
// for the receiver) and queries again. `?via=defer` hands it to c.var.defer (the scope's way),
// `?via=waitUntil` straight to ctx.waitUntil. Tallied per strategy and path, in the isolate.
const deferred = new Map<string, { ok: number; failed: number; errors: Record<string, number> }>();
app.post("/bench/deferred", async (c) => {
  const via = c.req.query("via") === "waitUntil" ? "waitUntil" : "defer";
  const key = `${strategyOf(c)}:${via}`;
  const tally = deferred.get(key) ?? { ok: 0, failed: 0, errors: {} };
  deferred.set(key, tally);
  const db = c.var.db;
  await db.execute(sql`select 1`);
  const work = (async () => {
    await new Promise((r) => setTimeout(r, 20));
    try {
      await db.execute(sql`select 1`);
      tally.ok += 1;
    } catch (err) {
      tally.failed += 1;
      const message = causesOf(err).at(-1) ?? String(err);
      tally.errors[message] = (tally.errors[message] ?? 0) + 1;
    }
  })();
  if (via === "defer") c.var.defer(work);
  else c.executionCtx.waitUntil(work);
  return c.json({ queued: true }, 202);
});
app.get("/bench/deferred", (c) => c.json(Object.fromEntries(deferred)));

// The webhook fan-out where production runs it, in workerd (bench/webhooks.ts). POST
// /bench/fanout/bare?url=&n= is the floor: n bare POSTs of the request's body to url, six in
// flight (a Worker's limit of open connections). POST /bench/fanout/emit?organizationId= is the
// platform's: src/webhooks/deliver.ts emit() of a call.completed, direct mode, through the app's
// request scope, answered once every delivery is sent and recorded. Both answer when done.
app.post("/bench/fanout/bare", async (c) => {
  const url = c.req.query("url") ?? "";
  const n = Number(c.req.query("n") ?? 100);
  const body = await c.req.text();
  let failed = 0;
  await mapLimit(Array.from({ length: n }), 6, async () => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    await res.arrayBuffer();
    if (!res.ok) failed++;
  });
  return c.json({ sent: n, failed });
});
app.post("/bench/fanout/emit", async (c) => {
  const pending: Promise<unknown>[] = [];
  const { deliveryIds } = await emit(
    { db: c.var.db, config: c.var.config, waitUntil: (p) => pending.push(p) },
    { organizationId: c.req.query("organizationId") ?? "", event: "call.completed", data: testEventData("call.completed") },
  );
  await Promise.all(pending);
  return c.json({ sent: deliveryIds.length });
});

// As src/app.ts mounts /v1 (the parts GET /v1/me and GET /v1/agents go through; src/app.ts runs the
// input guard on every path, here on /v1 alone).
app.use("/v1/*", guardInput);
app.route("/v1", v1Routes());

type BenchBindings = Bindings & { BENCH_DEV_WS_PROXY?: string; BENCH_DEV_HTTP_ENDPOINT?: string };
const devProxyEnvs = new WeakMap<object, Bindings>();
/** The same bindings with DATABASE_WS_PROXY and DATABASE_HTTP_ENDPOINT swapped, one object per isolate (parseEnv caches by object). */
const withDevProxy = (env: BenchBindings): Bindings => {
  let swapped = devProxyEnvs.get(env);
  if (!swapped) {
    swapped = {
      ...env,
      DATABASE_WS_PROXY: env.BENCH_DEV_WS_PROXY,
      DATABASE_HTTP_ENDPOINT: env.BENCH_DEV_HTTP_ENDPOINT ?? env.DATABASE_HTTP_ENDPOINT,
    };
    devProxyEnvs.set(env, swapped);
  }
  return swapped;
};

// biome-ignore lint/style/noDefaultExport: a Worker's entry point is its default export.
export default {
  fetch: (request, env, ctx) =>
    app.fetch(request, request.headers.get("x-bench-proxy") === "dev" ? withDevProxy(env) : env, new TrackingContext(ctx)),
} satisfies ExportedHandler<BenchBindings>;

// wrangler.toml binds the call sessions' Durable Object (CALL_SESSIONS); a Worker started with that
// config must export its class, or wrangler dev refuses to start it. The strategies never use it.
export { CallSession } from "../../src/calls/durable-object";
