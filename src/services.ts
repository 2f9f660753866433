// The per-request dependencies every surface hands to the services, built once by one factory:
// by the init middleware for a request (`c.var.services`) and by the worker's scheduled handler
// for a cron run (unkey's pkg/middleware/init.ts pattern). Nothing here opens a connection.
// An authenticated request adds who acts, and for which organization: its RequestContext
// (`c.var.ctx`), which the resource services take as `{ ctx, input }` (docs/architecture.md).
//
// Every service imports its context types from here, so this file imports none of them (no import
// circle, docs/architecture.md): only the configuration, the scope, the providers and the carrier.
import type { Db } from "./db/client";
import type { Scope } from "./db/scope";
import type { AppConfig, Bindings } from "./env";
import { ApiError } from "./lib/errors";
import { type Providers, providersOf } from "./providers/registry";
import { telephonyProvider } from "./telephony/registry";
import type { TelephonyProvider } from "./telephony/types";

export type { Providers };

/**
 * What domain code that outlives one resource's reads runs with (calls, tools, messaging, the
 * webhook engine): the scope's database and deferred work, the configuration, the origin, and the
 * providers, which are reached only through here (docs/architecture.md). The webhook engine's
 * `WebhookDeps` (src/webhooks/attempt.ts) is its part without the providers.
 */
export interface DomainContext {
  db: Db;
  config: AppConfig;
  /** Keeps work alive after the response (the request scope's defer in the worker). */
  waitUntil(promise: Promise<unknown>): void;
  /** The request's origin, for the built-in test receiver's URL when PUBLIC_BASE_URL is unset. */
  origin?: string;
  providers: Providers;
  /**
   * The campaigns' runners (one Durable Object per campaign, src/campaigns/runner/), where the
   * worker has the binding: a campaign call's end wakes its runner. Absent in Node tools.
   */
  campaignRunners?: DurableObjectNamespace;
  /**
   * The agent tests' runners (one Durable Object per batch of runs, src/agent-tests/runner/), where
   * the worker has the binding: a run POST hands its runs to one. Absent in Node tools.
   */
  testRunners?: DurableObjectNamespace;
}

/** The service's public origin: PUBLIC_BASE_URL, else the origin the request came to. */
export const publicOrigin = (config: Pick<AppConfig, "PUBLIC_BASE_URL">, requestOrigin: string | undefined): string =>
  config.PUBLIC_BASE_URL ?? requestOrigin ?? "";

/** A context for work outside a request (a call's Durable Object, a cron run); `env` gives the campaigns' and the tests' runners. */
export function contextOf(
  scope: Scope,
  config: AppConfig,
  origin?: string,
  env: Pick<Bindings, "CAMPAIGN_RUNNERS" | "TEST_RUNNERS"> = {},
): DomainContext {
  return {
    db: scope.db,
    config,
    waitUntil: (p) => scope.defer(p),
    origin: origin ?? config.PUBLIC_BASE_URL,
    providers: providersOf(config),
    campaignRunners: env.CAMPAIGN_RUNNERS,
    testRunners: env.TEST_RUNNERS,
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
  /** The calls' Durable Objects (one per call); 503 misconfigured when the binding is missing. */
  callSessions(): DurableObjectNamespace;
  /** Knowledge bases' originals (R2); 503 misconfigured when the binding is missing. */
  knowledgeBucket(): R2Bucket;
}

/** The bucket of knowledge bases' originals, or the error that says what to fix. */
const knowledgeBucketOf = (env: Pick<Bindings, "KNOWLEDGE">) => (): R2Bucket => {
  if (!env.KNOWLEDGE) throw new ApiError("misconfigured", "The KNOWLEDGE R2 bucket binding is missing (wrangler.toml).");
  return env.KNOWLEDGE;
};

/** The Durable Object namespace of the calls, or the error that says what to fix. */
const callSessionsOf = (env: Pick<Bindings, "CALL_SESSIONS">) => (): DurableObjectNamespace => {
  if (!env.CALL_SESSIONS) throw new ApiError("misconfigured", "The CALL_SESSIONS Durable Object binding is missing (wrangler.toml).");
  return env.CALL_SESSIONS;
};

/** `origin` is the request's (`https://host`), or none for a cron run (PUBLIC_BASE_URL then); `env` the Worker's bindings. */
export function buildServices(
  scope: Scope,
  config: AppConfig,
  origin: string | undefined,
  env: Pick<Bindings, "CALL_SESSIONS" | "KNOWLEDGE" | "CAMPAIGN_RUNNERS" | "TEST_RUNNERS">,
): Services {
  const ctx = contextOf(scope, config, origin, env);
  return {
    webhooks: ctx,
    publicOrigin: publicOrigin(config, origin),
    providers: ctx.providers,
    telephony: () => telephonyProvider(config),
    callSessions: callSessionsOf(env),
    knowledgeBucket: knowledgeBucketOf(env),
  };
}

/** Who acts: an API key, a dashboard user, or the platform itself (a call's runtime, a cron run). */
export type Actor = { type: "api_key"; id: string } | { type: "user"; id: string } | { type: "system" };

/**
 * An authenticated request's context: the domain context plus the organization, the actor, the
 * public origin, the carrier and the calls' Durable Objects.
 */
export interface RequestContext extends DomainContext {
  organizationId: string;
  actor: Actor;
  publicOrigin: string;
  telephony(): TelephonyProvider;
  callSessions(): DurableObjectNamespace;
  knowledgeBucket(): R2Bucket;
}

/** What an operation declares it needs: a part of the request context (a cron run or a call's runtime can build it too). */
export type Ctx<K extends keyof RequestContext> = Pick<RequestContext, K>;

/** A domain operation's one argument: the part of the context it needs (by default the organization's database) and its input. */
export interface Op<I, K extends keyof RequestContext = "db" | "organizationId"> {
  ctx: Ctx<K>;
  input: I;
}

/**
 * What the request context needs of the request's authentication: src/context.ts's AuthContext
 * (named by its fields here, since src/context.ts imports this file).
 */
export interface Authenticated {
  type: "api_key" | "session";
  organizationId: string;
  user: { id: string } | null;
  apiKeyId?: string;
}

/** The actor of an authenticated request: its API key, else its signed-in user. */
const actorOf = (auth: Authenticated): Actor => {
  if (auth.type === "api_key" && auth.apiKeyId) return { type: "api_key", id: auth.apiKeyId };
  if (auth.user) return { type: "user", id: auth.user.id };
  return { type: "system" };
};

/** The request context of an authenticated request (set as `c.var.ctx` with `c.var.auth`): no I/O, a few fields. */
export function requestContext(services: Services, auth: Authenticated): RequestContext {
  return {
    ...services.webhooks,
    organizationId: auth.organizationId,
    actor: actorOf(auth),
    publicOrigin: services.publicOrigin,
    telephony: services.telephony,
    callSessions: services.callSessions,
    knowledgeBucket: services.knowledgeBucket,
  };
}
