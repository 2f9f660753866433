// Children started in a process group of their own (`detached`), as wrangler dev is, so that
// stopping one ends what it started too (workerd). Stopped with SIGTERM, then SIGKILL after 5 s.
// And ended with this process when it exits without stopping them (a bench that gives up, a test
// run that crashes), so no worker is left running and holding its port.
import { type ChildProcess, execFile } from "node:child_process";

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
    if (pid === undefined) return;
    if (child.exitCode !== null || child.signalCode !== null) {
      // The launcher is gone (killed, crashed) but what it started may not be: workerd keeps its
      // port while it lives. A group that still exists holds only processes of ours.
      kill(pid, "SIGKILL");
      return;
    }
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    kill(pid, "SIGTERM");
    const timer = setTimeout(() => kill(pid, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
}

/**
 * The processes under `pid` (its children, theirs, …), by `ps` (Linux, macOS), with their command
 * names; undefined when `ps` cannot be run. `npm run dev` counts the workerd processes under its
 * worker's launcher with it (dev/start.ts).
 */
export async function processesUnder(pid: number): Promise<Array<{ pid: number; command: string }> | undefined> {
  const listing = await new Promise<string | undefined>((resolve) => {
    execFile("ps", ["-A", "-o", "pid=,ppid=,comm="], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => resolve(err ? undefined : stdout));
  });
  if (listing === undefined) return undefined;
  const children = new Map<number, Array<{ pid: number; command: string }>>();
  for (const line of listing.split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.+)$/.exec(line);
    if (!m) continue;
    const parent = Number(m[2]);
    const list = children.get(parent) ?? [];
    list.push({ pid: Number(m[1]), command: (m[3] as string).trim() });
    children.set(parent, list);
  }
  const found: Array<{ pid: number; command: string }> = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}
