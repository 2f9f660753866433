import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import type { WebhookDeps } from "../../../webhooks/deliver";
import { publicOrigin } from "../../../webhooks/endpoints";

/** The webhook engine's dependencies, from a request's context. */
export const webhookDeps = (c: Context<AppEnv>): WebhookDeps => ({
  db: c.var.db,
  config: c.var.config,
  // Deferred in the request scope, so the pool stays open until direct deliveries finish.
  waitUntil: (p) => c.var.defer(p),
  origin: new URL(c.req.url).origin,
});

/** The origin of URLs we show (the test receiver's): PUBLIC_BASE_URL, else this request's. */
export const originOf = (c: Context<AppEnv>) => publicOrigin(c.var.config, new URL(c.req.url).origin);

export interface Mount {
  /** `/v1/webhook-endpoints` or `/dashboard/api/webhook-endpoints`. */
  base: string;
  security: Array<Record<string, string[]>>;
  /** operationId prefix: "" for the API, "dashboard" for the dashboard's copy. */
  prefix: string;
  tag: string;
}

export const opId = (mount: Mount, name: string) => (mount.prefix ? `${mount.prefix}${name[0]?.toUpperCase()}${name.slice(1)}` : name);
