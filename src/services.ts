// The per-request dependencies every surface hands to the services, built once by one factory:
// by the init middleware for a request (`c.var.services`) and by the worker's scheduled handler
// for a cron run (unkey's pkg/middleware/init.ts pattern). Nothing here opens a connection.
import type { Scope } from "./db/scope";
import type { AppConfig } from "./env";
import { type Providers, providersOf } from "./providers/registry";
import { telephonyProvider } from "./telephony/registry";
import type { TelephonyProvider } from "./telephony/types";
import type { WebhookDeps } from "./webhooks/deliver";
import { publicOrigin } from "./webhooks/endpoints";

export type { Providers };

/**
 * What domain code that outlives one resource's reads runs with (calls, tools, messaging, the
 * webhook engine): the scope's database and deferred work, the configuration, the origin, and the
 * providers, which are reached only through here (docs/architecture.md).
 */
export interface DomainContext extends WebhookDeps {
  providers: Providers;
}

/** A context for work outside a request (a call's Durable Object, a cron run). */
export function contextOf(scope: Scope, config: AppConfig, origin?: string): DomainContext {
  return {
    db: scope.db,
    config,
    waitUntil: (p) => scope.defer(p),
    origin: origin ?? config.PUBLIC_BASE_URL,
    providers: providersOf(config),
  };
}

export interface Services {
  /** The request's context: the scope's database and deferred work, the configuration, the origin, the providers. */
  webhooks: DomainContext;
  /** The origin of URLs we show (the test receiver's, recordings): PUBLIC_BASE_URL, else the request's. */
  publicOrigin: string;
  /** The model providers of this deployment (the same object as `webhooks.providers`). */
  providers: Providers;
  /** The carrier (Twilio, or its sandbox); 503 telephony_unavailable when not configured. */
  telephony(): TelephonyProvider;
}

/** `origin` is the request's (`https://host`), or none for a cron run (PUBLIC_BASE_URL then). */
export function buildServices(scope: Scope, config: AppConfig, origin: string | undefined): Services {
  const ctx = contextOf(scope, config, origin);
  return {
    webhooks: ctx,
    publicOrigin: publicOrigin(config, origin),
    providers: ctx.providers,
    telephony: () => telephonyProvider(config),
  };
}
