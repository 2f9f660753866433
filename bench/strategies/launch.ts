// Starts bench/strategies/worker.ts under `wrangler dev` next to a running stack, with the
// stack's own variables (database, WebSocket proxy, Redis bridge, rate limit), so the
// strategies run on the same servers as the real worker.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "../../dev/stack";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface StrategyWorker {
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startStrategyWorker(
  vars: Record<string, string>,
  onOutput: (chunk: string) => void,
  timeoutMs = 90_000,
): Promise<StrategyWorker> {
  const port = await freePort();
  const args = [
    fileURLToPath(new URL("../../node_modules/wrangler/bin/wrangler.js", import.meta.url)),
    "dev",
    fileURLToPath(new URL("./worker.ts", import.meta.url)),
    "--name",
    "bench-strategies",
    "--port",
    String(port),
    "--ip",
    "127.0.0.1",
    "--inspector-port",
    String(await freePort()),
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
    ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", FORCE_COLOR: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so stop() ends workerd too
  });
  let output = "";
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-8000);
    onOutput(text);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 5000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev (strategies) exited (${child.exitCode}):\n${output.slice(-4000)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.ok) return { baseUrl: `http://127.0.0.1:${port}`, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`wrangler dev (strategies) did not become ready in ${timeoutMs / 1000} s:\n${output.slice(-4000)}`);
}
