import { Redis } from "@upstash/redis/cloudflare";
import type { AppConfig } from "../env";

/** The Upstash Redis client (REST): stateless, cheap to make per request. */
export const redisFor = (config: AppConfig, opts: { retry?: false } = {}) =>
  new Redis({ url: config.UPSTASH_REDIS_REST_URL, token: config.UPSTASH_REDIS_REST_TOKEN, ...opts });
