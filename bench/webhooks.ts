// Webhook benchmark (issue: "deliveries per second from one emit fanned out to 100 endpoints on
// a local receiver in direct mode, and the p50 cost of signing + logging per attempt, next to a
// bare fetch loop to the same receiver in the same run").
//
// emit() runs here in Node with the same code and the same Neon driver path the worker uses
// (database through the local stack's WebSocket proxy), against a receiver on 127.0.0.1.
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { type Stack, startStack } from "../dev/stack";
import { createDb } from "../src/db/client";
import { parseEnv } from "../src/env";
import { mapLimit } from "../src/lib/concurrency";
import { createOrganizationWithAdmin } from "../src/services/organizations";
import { attemptDelivery, emit, type WebhookDeps } from "../src/webhooks/deliver";
import { createEndpoint } from "../src/webhooks/endpoints";
import { signPayload } from "../src/webhooks/signature";
import { syntheticCallCompleted } from "../src/webhooks/test-event";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

export interface WebhookBenchResult {
  endpoints: number;
  emits: number;
  deliveries: number;
  emitDeliveriesPerSecond: number;
  bareFetchPerSecond: number;
  ratio: number;
  attemptP50Ms: number;
  bareFetchP50Ms: number;
  signingLoggingP50Ms: number;
  signOnlyP50Ms: number;
  failed: number;
}

export async function runWebhookBench(
  stack: Stack,
  log: (line: string) => void,
  opts: { endpoints?: number; emits?: number } = {},
): Promise<WebhookBenchResult> {
  const endpointsCount = opts.endpoints ?? 100;
  const emits = opts.emits ?? 5;
  let hits = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits++;
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}/hook`;

  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 6);
  try {
    const config = parseEnv({ ...stack.vars, WEBHOOKS_ALLOW_PRIVATE_URLS: "1" });
    const pending: Promise<unknown>[] = [];
    const deps: WebhookDeps = { db, config, waitUntil: (p) => pending.push(p) };
    const { organization } = await createOrganizationWithAdmin(db, {
      organizationName: "bench",
      email: `bench-${Date.now()}@example.test`,
      password: "bench-password",
    });
    log(`webhooks: creating ${endpointsCount} endpoints on a local receiver…`);
    await mapLimit(
      Array.from({ length: endpointsCount }, (_, i) => i),
      6,
      (i) =>
        createEndpoint(
          db,
          organization.id,
          {
            name: `bench ${i}`,
            description: null,
            url,
            active: true,
            useTestReceiver: false,
            testUrl: null,
            testMode: false,
            channels: ["voice"],
            events: "all",
            payloadMode: "all",
            customFields: [],
          },
          true,
        ),
    );
    const data = syntheticCallCompleted();
    const body = JSON.stringify({ deliveryId: "x", event: "call.completed", ...data });

    // Baseline: a bare fetch loop to the same receiver, same concurrency (6), same body size.
    log("webhooks: bare fetch baseline…");
    const bareTimes: number[] = [];
    const bareStart = performance.now();
    await mapLimit(Array.from({ length: endpointsCount * emits }), 6, async () => {
      const t0 = performance.now();
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      await res.text();
      bareTimes.push(performance.now() - t0);
    });
    const bareSeconds = (performance.now() - bareStart) / 1000;

    // emit(): fan-out to every endpoint, direct mode (sign, POST, record each attempt).
    log(`webhooks: ${emits} emits × ${endpointsCount} endpoints…`);
    hits = 0;
    let deliveries = 0;
    const emitStart = performance.now();
    for (let i = 0; i < emits; i++) {
      const r = await emit(deps, { organizationId: organization.id, event: "call.completed", data });
      deliveries += r.deliveryIds.length;
      await Promise.all(pending.splice(0));
    }
    const emitSeconds = (performance.now() - emitStart) / 1000;

    // Per attempt: the whole attempt (load, sign, POST, record) against the bare fetch.
    log("webhooks: per-attempt cost…");
    const sample = await emit({ ...deps, waitUntil: () => undefined }, { organizationId: organization.id, event: "call.completed", data });
    const attemptTimes: number[] = [];
    let failed = 0;
    for (const id of sample.deliveryIds) {
      const t0 = performance.now();
      const result = await attemptDelivery(deps, id, "resend");
      attemptTimes.push(performance.now() - t0);
      if (!result.ok) failed++;
    }
    const sequentialBare: number[] = [];
    for (let i = 0; i < sample.deliveryIds.length; i++) {
      const t0 = performance.now();
      await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
      sequentialBare.push(performance.now() - t0);
    }
    const signTimes: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t0 = performance.now();
      await signPayload("whs_benchmarksecretbenchmarksecret0123456", body);
      signTimes.push(performance.now() - t0);
    }
    if (hits < deliveries) failed += deliveries - hits;

    const result: WebhookBenchResult = {
      endpoints: endpointsCount,
      emits,
      deliveries,
      emitDeliveriesPerSecond: deliveries / emitSeconds,
      bareFetchPerSecond: (endpointsCount * emits) / bareSeconds,
      ratio: deliveries / emitSeconds / ((endpointsCount * emits) / bareSeconds),
      attemptP50Ms: pct(attemptTimes, 50),
      bareFetchP50Ms: pct(sequentialBare, 50),
      signingLoggingP50Ms: pct(attemptTimes, 50) - pct(sequentialBare, 50),
      signOnlyP50Ms: pct(signTimes, 50),
      failed,
    };
    log("");
    log("Webhooks (direct mode, one emit fanned out to endpoints on 127.0.0.1)");
    log(
      `  emit → ${endpointsCount} endpoints, ${emits} times: ${deliveries} deliveries, ${result.emitDeliveriesPerSecond.toFixed(0)} deliveries/s`,
    );
    log(
      `  bare fetch loop, same receiver, same concurrency: ${result.bareFetchPerSecond.toFixed(0)} requests/s (emit is ${(result.ratio * 100).toFixed(0)}% of it)`,
    );
    log(
      `  per attempt p50: ${ms(result.attemptP50Ms)} (bare fetch p50 ${ms(result.bareFetchP50Ms)}); signing + logging ≈ ${ms(result.signingLoggingP50Ms)}`,
    );
    log(`  HMAC signing alone p50: ${ms(result.signOnlyP50Ms)}`);
    log(`  failed deliveries: ${failed}`);
    return result;
  } finally {
    await pool.end();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stack = await startStack({ log: console.log, vars: { WEBHOOKS_ALLOW_PRIVATE_URLS: "1" } });
  try {
    const result = await runWebhookBench(stack, console.log, { emits: process.argv.includes("--quick") ? 1 : 5 });
    if (result.failed > 0) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}
