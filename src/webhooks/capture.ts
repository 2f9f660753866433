// The built-in test receiver (spec: "keeps captured requests in memory only"): the most recent
// CAPTURE_KEEP requests per endpoint, in Redis with a cap (LTRIM) and a TTL, never in Postgres.

import type { Redis } from "@upstash/redis/cloudflare";
import type { Db } from "../db/client";
import { ApiError } from "../lib/errors";
import type { Op } from "../services";
import { captureUrl, getEndpoint } from "./endpoints";
import { captureTokenExists } from "./queries/endpoints";

export const CAPTURE_KEEP = 20;
export const CAPTURE_TTL_SECONDS = 24 * 3600;
export const CAPTURE_BODY_LIMIT = 64 * 1024;
const KEPT_HEADERS = ["content-type", "user-agent", "x-service-signature", "x-service-event", "x-service-delivery-id"];

export interface CapturedRequest {
  id: string;
  receivedAt: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

const key = (token: string) => `whcap:${token}`;

export async function captureRequest(
  redis: Redis,
  token: string,
  req: { method: string; headers: Headers; body: string },
): Promise<CapturedRequest> {
  const entry: CapturedRequest = {
    id: crypto.randomUUID(),
    receivedAt: new Date().toISOString(),
    method: req.method,
    headers: Object.fromEntries(KEPT_HEADERS.flatMap((h) => (req.headers.has(h) ? [[h, req.headers.get(h) ?? ""]] : []))),
    body: req.body.slice(0, CAPTURE_BODY_LIMIT),
    truncated: req.body.length > CAPTURE_BODY_LIMIT,
  };
  const tx = redis.multi();
  tx.lpush(key(token), JSON.stringify(entry));
  tx.ltrim(key(token), 0, CAPTURE_KEEP - 1);
  tx.expire(key(token), CAPTURE_TTL_SECONDS);
  await tx.exec();
  return entry;
}

/**
 * The public capture URL: a request kept under the endpoint whose capture token is in the URL
 * (whatever the workspace: the token is the credential). 404 when no endpoint has that token; the
 * body is read only once the token is known.
 */
export async function receiveTestRequest({
  ctx: { db, redis },
  input: { token, ...req },
}: {
  ctx: { db: Db; redis: Redis };
  input: { token: string; method: string; headers: Headers; body: () => Promise<string> };
}): Promise<CapturedRequest> {
  if (!(await captureTokenExists(db, token))) throw new ApiError("not_found", "No test receiver at this URL.");
  return captureRequest(redis, token, { method: req.method, headers: req.headers, body: await req.body() });
}

export async function capturedRequests(redis: Redis, token: string): Promise<CapturedRequest[]> {
  const raw = await redis.lrange<string | CapturedRequest>(key(token), 0, CAPTURE_KEEP - 1);
  return raw.map((r) => (typeof r === "string" ? (JSON.parse(r) as CapturedRequest) : r));
}

export interface Captures {
  /** The endpoint's capture URL. */
  url: string;
  /** How many requests are kept. */
  keeps: number;
  /** Newest first. */
  requests: CapturedRequest[];
}

/** One endpoint's test receiver: its URL and what it captured (404 for another workspace's endpoint). */
export async function endpointCaptures({
  ctx,
  input: { endpointId },
}: {
  ctx: Op<unknown, "db" | "organizationId" | "publicOrigin">["ctx"] & { redis: Redis };
  input: { endpointId: string };
}): Promise<Captures> {
  const endpoint = await getEndpoint({ ctx, input: { id: endpointId } });
  const requests = await capturedRequests(ctx.redis, endpoint.captureToken);
  return { url: captureUrl(ctx.publicOrigin, endpoint.captureToken), keeps: CAPTURE_KEEP, requests };
}
