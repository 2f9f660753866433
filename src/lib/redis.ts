import { Redis } from "@upstash/redis/cloudflare";
import type { AppConfig } from "../env";

/**
 * The Upstash Redis client (REST): stateless, cheap to make per request. `timeoutMs` aborts each
 * request after that long (the caller then takes its fallback); `retry: false` fails at once.
 * Auto-pipelining (on by default) batches commands issued in one tick into one request.
 */
export const redisFor = (
  config: Pick<AppConfig, "UPSTASH_REDIS_REST_URL" | "UPSTASH_REDIS_REST_TOKEN">,
  opts: { retry?: false; timeoutMs?: number; autoPipelining?: false } = {},
) =>
  new Redis({
    url: config.UPSTASH_REDIS_REST_URL,
    token: config.UPSTASH_REDIS_REST_TOKEN,
    ...(opts.retry === false && { retry: false as const }),
    ...(opts.timeoutMs && { signal: () => AbortSignal.timeout(opts.timeoutMs as number) }),
    // A request that sends one command gains nothing from batching, and skips its proxy and tick.
    ...(opts.autoPipelining === false && { enableAutoPipelining: false }),
  });
