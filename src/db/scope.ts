// The database and background work of one unit of work (a request in the worker, a call
// session, a cron run). Statements go over Neon's HTTP path, so making the scope opens nothing;
// an interactive transaction opens a connection for its own length only (src/db/client.ts).
// Work deferred with `defer` (webhook deliveries in direct mode, cache fills) runs after the
// response; `close` settles all of it, including work it deferred in turn.
import { createHttpDb, type Db, type DbConfig } from "./client";

export interface Scope {
  db: Db;
  /** Keep `work` alive after the response; failures are logged, never thrown. */
  defer(work: Promise<unknown>): void;
  /** Settles every deferred task. Pass to ctx.waitUntil. */
  close(): Promise<void>;
}

export function openScope(config: DbConfig, log: (message: string) => void = console.error): Scope {
  let db: Db | undefined;
  const tasks: Promise<unknown>[] = [];
  return {
    get db() {
      db ??= createHttpDb(config);
      return db;
    },
    defer(work) {
      tasks.push(
        work.catch((err: unknown) => {
          const root = err instanceof Error && err.cause instanceof Error ? err.cause : (err as Error);
          log(JSON.stringify({ level: "error", msg: "background work failed", error: root?.name, message: root?.message }));
        }),
      );
    },
    async close() {
      while (tasks.length > 0) await Promise.allSettled(tasks.splice(0));
    },
  };
}
