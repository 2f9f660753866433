import { Redis } from "@upstash/redis/cloudflare";

/**
 * The Upstash Redis client (REST), from the two settings it needs (lib/ knows nothing of the app's configuration): stateless, cheap to make per request. `timeoutMs` aborts each
 * request after that long (the caller then takes its fallback); `retry: false` fails at once.
 * Auto-pipelining (on by default) batches commands issued in one tick into one request.
 */
export const redisFor = (
  config: { UPSTASH_REDIS_REST_URL: string; UPSTASH_REDIS_REST_TOKEN: string },
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
