// Children started in a process group of their own (`detached`), as wrangler dev is, so that
// stopping one ends what it started too (workerd). Stopped with SIGTERM, then SIGKILL after 5 s.
// And ended with this process when it exits without stopping them (a bench that gives up, a test
// run that crashes), so no worker is left running and holding its port.
import type { ChildProcess } from "node:child_process";

const running = new Set<number>();
let hooked = false;

const kill = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};

/** Registers a child started with `detached: true`; returns how to stop its group (resolves once it exited). */
export function processGroup(child: ChildProcess): () => Promise<void> {
  const pid = child.pid;
  if (pid !== undefined) {
    running.add(pid);
    child.once("exit", () => running.delete(pid));
  }
  if (!hooked) {
    hooked = true;
    process.on("exit", () => {
      for (const group of running) kill(group, "SIGKILL");
    });
  }
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null || pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    kill(pid, "SIGTERM");
    const timer = setTimeout(() => kill(pid, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
}
