// Embedded Postgres for laptops and CI: PGlite (WASM Postgres) persisted on disk and
// served over the Postgres wire protocol by pglite-socket. Only this process opens the
// data folder; every other client (the worker, the admin CLI, migrations) connects
// through the socket, so they all run while `npm run dev` is up.
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { installBatchQueue } from "./pglite-queue";

export interface EmbeddedPostgres {
  host: string;
  port: number;
  /** A connection string that every client (Neon driver via the proxy, node tools) uses. */
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(opts: {
  /** Folder for the data, or undefined for an in-memory database. */
  dataDir?: string;
  port?: number;
  maxConnections?: number;
}): Promise<EmbeddedPostgres> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  // pgvector, as Neon has it: knowledge bases' passages are searched with it (docs/knowledge.md).
  const db = await PGlite.create(opts.dataDir ?? "memory://", { extensions: { vector } });
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port: opts.port ?? 0,
    // Each in-flight request holds one connection (a Pool per request, as on Workers); the bench
    // measured failures past ~100 concurrent requests at 100 (docs/benchmarks.md).
    maxConnections: opts.maxConnections ?? 300,
  });
  installBatchQueue(server, db);
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  return {
    host: "127.0.0.1",
    port,
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
