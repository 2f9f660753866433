// Helpers for the webhook tests: endpoints through the API, and emit() driven from Node with
// the same configuration the test worker runs with.
import { openScope } from "../../src/db/scope";
import { parseEnv } from "../../src/env";
import { type EmitInput, emit, type WebhookDeps } from "../../src/webhooks/deliver";
import type { EndpointView } from "../../src/webhooks/endpoints";
import { expectError, json, stack, type Workspace } from "./harness";

export async function createEndpoint(ws: Workspace, body: Record<string, unknown>): Promise<EndpointView> {
  const res = await ws.api("/v1/webhook-endpoints", { method: "POST", json: { name: "hook", channels: ["voice"], ...body } });
  if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${await res.text()}`);
  return json<EndpointView>(res);
}

export async function refused(ws: Workspace, body: Record<string, unknown>, path: string) {
  const res = await ws.api("/v1/webhook-endpoints", { method: "POST", json: { name: "hook", channels: ["voice"], ...body } });
  const err = await expectError(res, 400, "validation_failed");
  if (!err.issues?.some((i) => i.path === path)) throw new Error(`expected an issue at ${path}: ${JSON.stringify(err.issues)}`);
  return err;
}

/**
 * emit() as a request of the worker runs it: in a request scope (a fresh pool of one
 * connection), returning before its direct-mode deliveries run, which are deferred; then the
 * scope closes as the worker's does after a response (or an error). Settles when the deliveries are done.
 * `overrides` are configuration variables of this emit only (e.g. WEBHOOK_DISABLE_AFTER_FAILURES).
 */
export async function emitNow(input: EmitInput, overrides: Record<string, string> = {}) {
  const vars = { ...stack().vars, ...overrides };
  const scope = openScope(parseEnv(vars));
  const deps: WebhookDeps = { db: scope.db, config: parseEnv(vars), waitUntil: scope.defer };
  try {
    return await emit(deps, input);
  } finally {
    await scope.close(); // as the worker's scope: deferred deliveries finish, also when the emit failed
  }
}
