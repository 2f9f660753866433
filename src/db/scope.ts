// The database and background work of one unit of work (a request in the worker). The pool is
// opened on first use; work deferred with `defer` (last-used updates, webhook deliveries in
// direct mode) runs after the response, and the pool is closed only once all of it, including
// work it deferred in turn, has settled. Workers keep no I/O objects across requests.
import { createDb, type Db } from "./client";

export interface Scope {
  db: Db;
  /** Keep `work` alive after the response; failures are logged, never thrown. */
  defer(work: Promise<unknown>): void;
  /** Settles every deferred task, then closes the pool. Pass to ctx.waitUntil. */
  close(): Promise<void>;
}

export function openScope(databaseUrl: string, wsProxy?: string, log: (message: string) => void = console.error): Scope {
  let opened: ReturnType<typeof createDb> | undefined;
  const tasks: Promise<unknown>[] = [];
  const db = new Proxy({} as Db, {
    get(_target, prop) {
      opened ??= createDb(databaseUrl, wsProxy);
      const value = Reflect.get(opened.db, prop);
      return typeof value === "function" ? value.bind(opened.db) : value;
    },
  });
  return {
    db,
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
      await opened?.pool.end();
    },
  };
}
