// Starts bench/strategies/worker.ts under `wrangler dev` next to a running stack, with the
// stack's own variables (database, WebSocket proxy, Redis bridge, rate limit), so the
// strategies run on the same servers as the real worker. Same launcher as the bench's app
// worker (bench/worker-launch.ts: no inspector, no file watching).
import { fileURLToPath } from "node:url";
import { startBenchWorker } from "../worker-launch";

export interface StrategyWorker {
  baseUrl: string;
  stop(): Promise<void>;
}

export function startStrategyWorker(
  vars: Record<string, string>,
  onOutput: (chunk: string) => void,
  timeoutMs = 90_000,
): Promise<StrategyWorker> {
  return startBenchWorker(vars, {
    script: fileURLToPath(new URL("./worker.ts", import.meta.url)),
    name: "bench-strategies",
    workerLog: onOutput,
    timeoutMs,
  });
}
