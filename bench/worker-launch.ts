// The bench's way of starting a worker: the same build, configuration and variables as
// dev/stack.ts startWorker (wrangler dev in its own process group), with two differences that
// keep wrangler's development tooling out of the figures:
//
// - No inspector. `wrangler dev` always attaches its inspector proxy to the worker and turns on
//   the DevTools Network domain, so every subrequest (each fetch() to Redis, to the SQL endpoint,
//   to a provider) sends three events (requestWillBeSent, responseReceived, loadingFinished) to
//   wrangler's inspector proxy worker, which posts each one, and every other message it relays,
//   to wrangler's Node process as a debug log, whatever the log level. Measured on a 2-core
//   machine at 1 connection: a route making one bare fetch() to a local server answered in 8 to
//   11 ms at p50 under `wrangler dev` and in 2.2 to 4 ms with the inspector off, /health in 1.3 to
//   1.6 ms either way; at 10 and 50 connections the route served twice the requests per second.
//   A deployed Worker has no inspector attached: the tax belongs to the tool, not to the route.
// - No file watching: a source file another engineer saves during a run no longer restarts the
//   worker under the load (the run measures the code as it was when it started).
//
// wrangler's own Node side (bundler, proxy controller) runs in a child process, as under the
// CLI, so it never shares the bench's thread. Started by bench/run.ts (the app's worker),
// bench/strategies/launch.ts (the bench-only worker) and bench/costs.ts (the counted worker).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processGroup } from "../dev/process-group";
import { freePort } from "../dev/stack";
import { buildOnce } from "../dev/wrangler-dev";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const READY = "bench-worker ready at ";

interface LaunchSpec {
  vars: Record<string, string>;
  port: number;
  persistTo: string;
  script?: string;
  name?: string;
  logLevel: string;
}

export interface BenchWorker {
  baseUrl: string;
  /** The launcher's process id: its workerd runs under it (bench/calls.ts reads that workerd's CPU time). */
  pid?: number;
  stop(): Promise<void>;
}

/**
 * Starts the worker (wrangler.toml's `main`, or `script`) with these variables, without the
 * inspector and without watching files, and waits until /health answers. Same options as
 * dev/stack.ts startWorker.
 */
export async function startBenchWorker(
  vars: Record<string, string>,
  opts: { port?: number; workerLog?: (chunk: string) => void; script?: string; name?: string; timeoutMs?: number } = {},
): Promise<BenchWorker> {
  const port = opts.port || (await freePort());
  const state = mkdtempSync(join(tmpdir(), "wrangler-state-"));
  const spec: LaunchSpec = {
    vars,
    port,
    persistTo: state,
    script: opts.script,
    name: opts.name,
    logLevel: process.env.WORKER_LOG_LEVEL ?? "warn",
  };
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SELF], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_WORKER_SPEC: JSON.stringify(spec),
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      FORCE_COLOR: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so stop() ends workerd too
  });
  let output = "";
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-8000);
    if (!text.includes(READY)) opts.workerLog?.(text);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);

  const stopGroup = processGroup(child);
  const stop = async () => {
    await stopGroup();
    rmSync(state, { recursive: true, force: true });
  };

  const timeoutMs = opts.timeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      rmSync(state, { recursive: true, force: true });
      throw new Error(`the bench worker exited (${child.exitCode}):\n${output}`);
    }
    // The address the child printed: the proxy worker's, or the worker's runtime (see serve()).
    const printed = new RegExp(`${READY}(\\S+)`).exec(output)?.[1];
    if (printed) {
      const baseUrl = printed.replace(/\/$/, "");
      try {
        const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
        if (res.ok) return { baseUrl, pid: child.pid, stop };
      } catch {
        // not answering yet
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`the bench worker did not become ready in ${timeoutMs / 1000} s:\n${output}`);
}

/**
 * In the child: wrangler's programmatic dev server, the CLI's settings less the inspector and the
 * watcher. It prints the address requests go to: wrangler's proxy worker, as under `wrangler dev`
 * (the setup the issues' figures were taken on), or with BENCH_WORKER_DIRECT=1 the worker's own
 * runtime (miniflare's entry socket in the worker's workerd), without the proxy's hop: the
 * nearest a laptop gets to a deployed Worker's front door (docs/benchmarks.md, "The proxy worker").
 */
async function serve(spec: LaunchSpec): Promise<void> {
  const { unstable_DevEnv } = await import("wrangler");
  const devEnv = new unstable_DevEnv();
  // The runtime says where the worker listens once it is loaded ("reloadComplete"); the proxy
  // worker learns it from the same event.
  let loaded: (url: string) => void = () => {};
  const direct = new Promise<string>((resolve) => {
    loaded = resolve;
  });
  const dispatch = devEnv.dispatch.bind(devEnv);
  devEnv.dispatch = (event) => {
    if (event.type === "reloadComplete") {
      const { protocol, hostname, port } = event.proxyData.userWorkerUrl;
      loaded(`${protocol}//${hostname}:${port}/`);
    }
    dispatch(event);
  };
  const worker = await devEnv.startWorker({
    config: join(ROOT, "wrangler.toml"),
    ...(spec.script && { entrypoint: spec.script, name: spec.name ?? "worker" }),
    bindings: Object.fromEntries(Object.entries(spec.vars).map(([k, v]) => [k, { type: "plain_text" as const, value: v }])),
    build: buildOnce(),
    dev: {
      server: { hostname: "127.0.0.1", port: spec.port },
      inspector: false,
      watch: false,
      persist: spec.persistTo,
      testScheduled: true,
      logLevel: spec.logLevel as "warn",
    },
  });
  await worker.ready;
  const stopAndExit = () => {
    worker.dispose().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stopAndExit);
  process.once("SIGINT", stopAndExit);
  const url = process.env.BENCH_WORKER_DIRECT === "1" ? await direct : (await worker.url).toString();
  console.log(`${READY}${url}`);
}

if (process.argv[1] === SELF) {
  const raw = process.env.BENCH_WORKER_SPEC;
  if (!raw) {
    console.error("bench/worker-launch.ts is started by startBenchWorker(), with BENCH_WORKER_SPEC");
    process.exit(2);
  }
  serve(JSON.parse(raw) as LaunchSpec).catch((err) => {
    console.error(`bench worker: ${(err as Error).stack ?? err}`);
    process.exit(1);
  });
}
