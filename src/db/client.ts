// One way to reach Postgres, in the worker and in Node tools alike: the Neon serverless
// driver's Pool over a WebSocket. In production that socket goes to Neon; on a laptop and
// in CI to the local stack's proxy (DATABASE_WS_PROXY), which forwards to PGlite or a real
// PostgreSQL. Only the server on the other end changes.
import { neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import * as schema from "./schema";

export type Db = NeonDatabase<typeof schema>;

export function configureNeon(wsProxy: string | undefined): void {
  if (!wsProxy) return;
  neonConfig.wsProxy = (host, port) => `${wsProxy}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
}

export function createDb(databaseUrl: string, wsProxy?: string, max = 1): { db: Db; pool: Pool } {
  configureNeon(wsProxy);
  const pool = new Pool({ connectionString: databaseUrl, max });
  return { db: drizzle({ client: pool, schema }), pool };
}
