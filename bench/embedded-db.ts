// The embedded backend's database for the bench: the same in-memory PGlite as dev/stack.ts
// starts (dev/postgres.ts), served over the Postgres wire protocol, but in a child process.
//
// Why: PGlite runs every statement synchronously on the thread that owns it. Inside the bench's
// process that thread is also autocannon's (the load generator of the routes part) and the one
// that runs emit() and the receivers in the webhooks part, so each statement stalled the load
// generator or the fan-out's calls in flight for as long as it ran: measured on a 2-core machine,
// the bench's own CPU per webhook delivery went from 1.4-2.1 ms with PGlite in a child to
// 2.2-2.7 ms with it in the bench's thread (a bare fetch to the receiver: 0.9-1.7 ms). In
// production the database is Neon, on other machines: its time is never the caller's CPU.
// The stack is given its URL as a database (startStack's `databaseUrl`) and runs its own
// stand-ins (SQL over HTTP, WebSocket proxy) and migrations in front of it as for PGlite.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startEmbeddedPostgres } from "../dev/postgres";

const SELF = fileURLToPath(import.meta.url);
const READY = "bench-db ready at ";

export interface EmbeddedDbProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts an in-memory PGlite in a child process and answers its connection string. */
export async function startEmbeddedDbProcess(timeoutMs = 120_000): Promise<EmbeddedDbProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", SELF], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, BENCH_EMBEDDED_DB: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the embedded database did not start in ${timeoutMs / 1000} s:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      const line = output.split("\n").find((l) => l.startsWith(READY));
      if (line) {
        clearTimeout(timer);
        resolve(line.slice(READY.length).trim());
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the embedded database exited (${code}):\n${output}`));
    });
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, stop };
}

if (process.argv[1] === SELF && process.env.BENCH_EMBEDDED_DB === "1") {
  const pg = await startEmbeddedPostgres({});
  const shutdown = () => {
    pg.stop().finally(() => process.exit(0));
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  // The bench going away without stopping us (a crash, SIGKILL) must not leave a database behind.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) shutdown();
  }, 2000).unref();
  console.log(`${READY}${pg.url}`);
}
