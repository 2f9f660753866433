// Helpers for the webhook tests: endpoints through the API, and emit() driven from Node with
// the same configuration the test worker runs with.
import { parseEnv } from "../src/env";
import { type EmitInput, emit, type WebhookDeps } from "../src/webhooks/deliver";
import type { EndpointView } from "../src/webhooks/endpoints";
import { expectError, json, stack, testDb, type Workspace } from "./harness";

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

/** emit() from Node against the test stack; resolves when its direct-mode attempts are done. */
export async function emitNow(input: EmitInput) {
  const pending: Promise<unknown>[] = [];
  const deps: WebhookDeps = { db: testDb(), config: parseEnv({ ...stack().vars }), waitUntil: (p) => pending.push(p) };
  const result = await emit(deps, input);
  await Promise.all(pending);
  return result;
}
