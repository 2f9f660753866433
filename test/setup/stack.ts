// Global setup of an integration project: one stack (database, Redis bridge, the real worker
// under wrangler dev) for the whole project, handed to the tests through `inject("stack")`.
import type { TestProject } from "vitest/node";
import { startStack } from "../../dev/stack";
import { buildWidget } from "../../widget/build";

export interface TestStack {
  baseUrl: string;
  databaseUrl: string;
  wsProxy: string;
  redisUrl: string;
  redisToken: string;
  backend: "embedded" | "real";
  vars: Record<string, string>;
}

declare module "vitest" {
  export interface ProvidedContext {
    stack: TestStack;
  }
}

export default async function setup(project: TestProject) {
  const backend = (project.config.env?.TEST_BACKEND ?? "embedded") as "embedded" | "real";
  const started = Date.now();
  // The worker serves public/widget.js as a static asset: build it first (`npx vitest` skips npm's pretest).
  await buildWidget();
  // Local receivers (127.0.0.1) need the development switch; the SSRF tests start their own
  // worker with it off, as in production.
  // The suite signs in hundreds of times from one address; test/integration/ratelimit.test.ts
  // proves the sign-in limits on a worker of its own with small ones.
  // Short web-call tokens and watchdog slack, so the watchdog tests take seconds, not minutes.
  // The widget tests all call from one address; widgets/limits.test.ts proves that limit on its own worker.
  // Importing a URL that never answers gives up in 5 s, not 15 (test/integration/knowledge/errors.test.ts).
  const vars = {
    WEBHOOKS_ALLOW_PRIVATE_URLS: "1",
    SIGN_IN_LIMIT_PER_EMAIL: "100000",
    SIGN_IN_LIMIT_PER_ADDRESS: "100000",
    WIDGET_RATE_LIMIT_ADDRESS: "100000",
    WEB_CALL_TOKEN_TTL_SECONDS: "10",
    CALL_WATCHDOG_GRACE_SECONDS: "5",
    KNOWLEDGE_URL_TIMEOUT_MS: "5000",
  };
  const real = { databaseUrl: process.env.DATABASE_URL, redisUrl: process.env.REDIS_URL };
  // TEST_WORKER_LOG=1 shows the worker's own output (wrangler's and console.log's), for debugging.
  const workerLog = process.env.TEST_WORKER_LOG ? (chunk: string) => process.stderr.write(`[worker] ${chunk}`) : undefined;
  const stack = await startStack(backend === "real" ? { ...real, vars, workerLog } : { vars, workerLog });
  console.log(
    `[${project.name}] stack up in ${Date.now() - started} ms: worker ${stack.baseUrl}, ${stack.postgres}, redis ${stack.redis.backend}`,
  );
  project.provide("stack", {
    baseUrl: stack.baseUrl,
    databaseUrl: stack.databaseUrl,
    wsProxy: stack.wsProxy,
    redisUrl: stack.redis.url,
    redisToken: stack.redis.token,
    backend,
    vars: stack.vars,
  });
  return () => stack.stop();
}
