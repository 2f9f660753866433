// How Node tools (admin CLI, migrations, bench) reach the database through the same Neon
// driver the worker uses. Order: the running `npm run dev` stack (.data/stack.json), then
// DATABASE_URL. A DATABASE_URL that is not Neon gets an in-process WebSocket proxy, since the
// Neon driver speaks Postgres over a WebSocket.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { neonConfig } from "@neondatabase/serverless";
import { Redis } from "@upstash/redis/cloudflare";
import { WebSocket } from "ws";
import { startWsProxy } from "./ws-proxy";

neonConfig.webSocketConstructor = WebSocket;

export const dataDir = () => process.env.DATA_DIR ?? join(process.cwd(), ".data");
export const stackFile = () => join(dataDir(), "stack.json");

export interface StackInfo {
  pid: number;
  baseUrl: string;
  databaseUrl: string;
  wsProxy: string;
  /** The stack's Upstash bridge (file mode 0600: the token is a local secret). */
  redis?: { url: string; token: string };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export function readStackInfo(): StackInfo | null {
  if (!existsSync(stackFile())) return null;
  let info: StackInfo;
  try {
    info = JSON.parse(readFileSync(stackFile(), "utf8")) as StackInfo;
  } catch {
    return null; // damaged or half-written: no running stack
  }
  return typeof info.pid === "number" && alive(info.pid) ? info : null;
}

/**
 * The key cache (Redis) for tools that revoke keys or show last-used: the running stack's bridge,
 * else UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, else none (null).
 */
export function connectRedis(): Redis | null {
  const stack = readStackInfo();
  if (stack?.redis) return new Redis({ url: stack.redis.url, token: stack.redis.token, retry: false });
  const { UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = process.env;
  return url && token ? new Redis({ url, token }) : null;
}

export const isNeonHost = (url: string) => /\.neon\.tech$/i.test(new URL(url).hostname);

export async function connectNode(): Promise<{ databaseUrl: string; wsProxy?: string; close(): Promise<void> }> {
  const stack = readStackInfo();
  if (stack) return { databaseUrl: stack.databaseUrl, wsProxy: stack.wsProxy, close: async () => {} };
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error("No database: start `npm run dev` (it serves the local database), or set DATABASE_URL.");
  }
  if (isNeonHost(url)) return { databaseUrl: url, close: async () => {} };
  const target = new URL(url);
  const proxy = await startWsProxy({ host: target.hostname, port: Number(target.port || 5432) });
  return { databaseUrl: url, wsProxy: `127.0.0.1:${proxy.port}`, close: () => proxy.stop() };
}
