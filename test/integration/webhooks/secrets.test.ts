// Webhook signing secrets at rest (docs/secrets.md): sealed in Postgres under SECRETS_KEK, bound
// to their row; signatures made with what the API returned; legacy plaintext rows working until
// `npm run admin -- secrets reseal`; a rotated key-encryption key; a wrong one failing clearly,
// and the secret never in a body, a log or the delivery log. Two more workers on the same stack:
// one with a rotated SECRETS_KEK (a new first key, the stack's key after it), one with a wrong key.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startWorker } from "../../../dev/stack";
import { webhookEndpoints } from "../../../src/db/schema";
import type { Page } from "../../../src/lib/pagination";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import type { DeliveryView } from "../../../src/webhooks/log";
import { receiversPerTest } from "../../support/deliveries";
import { createWorkspace, expectError, json, stack, testDb, type Workspace } from "../../support/harness";
import { runAdmin, runAdminJson } from "../../support/process";
import type { Receiver } from "../../support/receiver";
import { stripeAccepts } from "../../support/stripe";
import { createEndpoint } from "../../support/webhooks";

const emptyDataDir = mkdtempSync(join(tmpdir(), "secrets-cli-"));

const stackKek = () => stack().vars.SECRETS_KEK as string;
const stackKid = () => stackKek().split(":")[0] as string;
const rotatedKek = () => `next:${randomBytes(32).toString("base64")},${stackKek()}`;

let rotated: Awaited<ReturnType<typeof startWorker>>;
let wrong: Awaited<ReturnType<typeof startWorker>>;
let rotatedSpec = "";
let wrongLog = "";

beforeAll(async () => {
  rotatedSpec = rotatedKek();
  [rotated, wrong] = await Promise.all([
    startWorker({ ...stack().vars, SECRETS_KEK: rotatedSpec }),
    // The stack's key id with other key material: what a mistyped or regenerated secret looks like.
    startWorker(
      { ...stack().vars, SECRETS_KEK: `${stackKid()}:${randomBytes(32).toString("base64")}` },
      { workerLog: (chunk) => (wrongLog += chunk) },
    ),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([rotated?.stop(), wrong?.stop()]);
  rmSync(emptyDataDir, { recursive: true, force: true });
});

const { receiver } = receiversPerTest();

/** A request to one of the workers with the workspace's key. */
const on = (base: string, ws: Workspace, path: string, method = "GET") =>
  fetch(base + path, { method, headers: { authorization: `Bearer ${ws.apiKey}` } });

const storedSecret = async (id: string) => {
  const [row] = await testDb().select({ secret: webhookEndpoints.secret }).from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  if (!row) throw new Error(`no endpoint ${id}`);
  return row.secret;
};

/** Send Test on a worker; returns what the receiver got (its n-th request). */
async function sendTest(base: string, ws: Workspace, id: string, r: Receiver, n: number) {
  const res = await on(base, ws, `/v1/webhook-endpoints/${id}/test`, "POST");
  expect(res.status, await res.clone().text()).toBe(200);
  const delivery = await json<DeliveryView>(res);
  expect(delivery.status).toBe("succeeded");
  const got = (await r.waitFor(n))[n - 1];
  if (!got) throw new Error("nothing received");
  return { body: got.body, signature: String(got.headers["x-service-signature"]), delivery };
}

const SEALED = (kid: string) => new RegExp(`^v1:${kid}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{70,}$`);

/** The admin CLI (with --json) on the stack's database, with `kek` as its SECRETS_KEK. */
const cliEnv = (kek: string): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: stack().databaseUrl,
  DATA_DIR: emptyDataDir,
  SECRETS_KEK: kek,
});
const admin = (args: string[], kek: string) => runAdmin([...args, "--json"], cliEnv(kek));
const adminJson = <T>(args: string[], kek = stackKek()) => runAdminJson<T>(args, cliEnv(kek));

describe("webhook signing secrets at rest", () => {
  it("the stored column is the sealed secret (AES-GCM under the current key), never the secret", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a" });
    expect(e.secret).toMatch(/^whs_[0-9A-Za-z]{40}$/);
    const stored = await storedSecret(e.id);
    expect(stored).toMatch(SEALED(stackKid()));
    expect(stored).not.toContain(e.secret);
    expect(stored).not.toContain(e.secret.slice(-10));
    // Reading it back through the API: masked, with the secret's own last characters.
    const fetched = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`));
    expect(fetched.secret).toBe(`whs_...${e.secret.slice(-6)}`);
  });

  it("signatures verify with the secret returned at creation, then only with the one returned at rotation", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const e = await createEndpoint(ws, { url: r.url });
    const first = await sendTest(stack().baseUrl, ws, e.id, r, 1);
    expect(stripeAccepts(first.body, first.signature, e.secret)).toBe(true);

    const before = await storedSecret(e.id);
    const rotatedView = await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}/rotate-secret`, { method: "POST" }));
    expect(rotatedView.secret).toMatch(/^whs_[0-9A-Za-z]{40}$/);
    expect(rotatedView.secret).not.toBe(e.secret);
    const after = await storedSecret(e.id);
    expect(after).toMatch(SEALED(stackKid()));
    expect(after).not.toBe(before);
    expect(after).not.toContain(rotatedView.secret);

    const second = await sendTest(stack().baseUrl, ws, e.id, r, 2);
    expect(stripeAccepts(second.body, second.signature, rotatedView.secret)).toBe(true);
    expect(stripeAccepts(second.body, second.signature, e.secret)).toBe(false);
    expect((await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`))).secret).toBe(`whs_...${rotatedView.secret.slice(-6)}`);
  });

  it("a sealed value copied into another endpoint's row does not open there (bound to its row)", async () => {
    const ws = await createWorkspace();
    const a = await createEndpoint(ws, { url: "https://hooks.example.com/a" });
    const b = await createEndpoint(ws, { url: "https://hooks.example.com/b" });
    await testDb()
      .update(webhookEndpoints)
      .set({ secret: await storedSecret(a.id) })
      .where(eq(webhookEndpoints.id, b.id));
    const err = await expectError(await ws.api(`/v1/webhook-endpoints/${b.id}`), 500, "misconfigured");
    expect(err.message).toMatch(/does not open with the key ".+" of SECRETS_KEK: .*altered/);
    expect(JSON.stringify(err)).not.toContain(a.secret);
  });

  it("the delivery log, the test receiver and the dashboard's list never show the secret", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { useTestReceiver: true });
    expect((await ws.api(`/v1/webhook-endpoints/${e.id}/test`, { method: "POST" })).status).toBe(200);
    for (const path of [`/webhooks/${e.id}/deliveries`, `/v1/webhook-endpoints/${e.id}/test-receiver`, "/v1/webhook-endpoints"]) {
      const text = await (await ws.api(path)).text();
      expect(text).not.toContain(e.secret);
      expect(text).not.toContain(e.secret.slice(4, 20));
    }
    const list = await json<Page<EndpointView>>(await ws.api("/v1/webhook-endpoints"));
    expect(list.data.map((x) => x.secret)).toEqual([`whs_...${e.secret.slice(-6)}`]);
  });

  it("a legacy plaintext row keeps working (opened as is) until `npm run admin -- secrets reseal` seals it", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const e = await createEndpoint(ws, { url: r.url });
    // As rows were stored before encryption at rest.
    await testDb().update(webhookEndpoints).set({ secret: e.secret }).where(eq(webhookEndpoints.id, e.id));
    expect((await json<EndpointView>(await ws.api(`/v1/webhook-endpoints/${e.id}`))).secret).toBe(`whs_...${e.secret.slice(-6)}`);
    const before = await sendTest(stack().baseUrl, ws, e.id, r, 1);
    expect(stripeAccepts(before.body, before.signature, e.secret)).toBe(true);

    const status = await adminJson<{ current: string; usage: Record<string, number> }>(["secrets", "status", "--org", ws.organizationId]);
    expect(status).toMatchObject({ current: stackKid(), usage: { plaintext: 1 } });
    const resealed = await adminJson<Record<string, unknown>>(["secrets", "reseal", "--org", ws.organizationId]);
    expect(resealed).toMatchObject({ kid: stackKid(), sealed: 1, resealed: 0, current: 0, skipped: 0 });
    expect(resealed.columns).toEqual({
      "webhook_endpoints.secret": { sealed: 1, resealed: 0, current: 0, skipped: 0 },
      "agents.tool_secret": { sealed: 0, resealed: 0, current: 0, skipped: 0 },
      "messaging_channels.credentials": { sealed: 0, resealed: 0, current: 0, skipped: 0 },
    });
    const stored = await storedSecret(e.id);
    expect(stored).toMatch(SEALED(stackKid()));
    const after = await sendTest(stack().baseUrl, ws, e.id, r, 2);
    expect(stripeAccepts(after.body, after.signature, e.secret)).toBe(true);
    // Run again: nothing left to do.
    expect(await adminJson(["secrets", "reseal", "--org", ws.organizationId])).toMatchObject({
      kid: stackKid(),
      sealed: 0,
      resealed: 0,
      current: 1,
      skipped: 0,
    });
  });

  it("KEK rotation: a new first key seals, the old one still opens, and reseal moves every secret to the new key", async () => {
    const ws = await createWorkspace();
    const r = await receiver();
    const old = await createEndpoint(ws, { url: r.url }); // sealed by the stack's worker, old key
    // The rotated worker opens what the old key sealed …
    expect((await json<EndpointView>(await on(rotated.baseUrl, ws, `/v1/webhook-endpoints/${old.id}`))).secret).toBe(
      `whs_...${old.secret.slice(-6)}`,
    );
    const signed = await sendTest(rotated.baseUrl, ws, old.id, r, 1);
    expect(stripeAccepts(signed.body, signed.signature, old.secret)).toBe(true);
    // … and seals new secrets with its first key, which a worker without it cannot open.
    const fresh = await json<EndpointView>(await on(rotated.baseUrl, ws, `/v1/webhook-endpoints/${old.id}/rotate-secret`, "POST"));
    expect(await storedSecret(old.id)).toMatch(SEALED("next"));
    const unknown = await expectError(await ws.api(`/v1/webhook-endpoints/${old.id}`), 500, "misconfigured");
    expect(unknown.message).toBe(
      `A stored secret (webhook_endpoints.secret) is sealed with key id "next", which SECRETS_KEK does not hold (it holds "${stackKid()}"). Add that key back to SECRETS_KEK.`,
    );
    expect(JSON.stringify(unknown)).not.toContain(fresh.secret);

    const other = await createEndpoint(ws, { url: "https://hooks.example.com/other" });
    const resealed = await adminJson<Record<string, number>>(["secrets", "reseal", "--org", ws.organizationId], rotatedSpec);
    expect(resealed).toMatchObject({ kid: "next", resealed: 1, sealed: 0, current: 1 });
    expect(await storedSecret(other.id)).toMatch(SEALED("next"));
    expect(
      await adminJson<{ usage: Record<string, number> }>(["secrets", "status", "--org", ws.organizationId], rotatedSpec),
    ).toMatchObject({ usage: { next: 2 } });
    const again = await sendTest(rotated.baseUrl, ws, old.id, r, 2);
    expect(stripeAccepts(again.body, again.signature, fresh.secret)).toBe(true);
  });

  it("a wrong SECRETS_KEK fails clearly (500 misconfigured naming the key), never showing or logging the secret", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a" });
    const expected = `A stored secret (webhook_endpoints.secret) does not open with the key "${stackKid()}" of SECRETS_KEK: the key is not the one it was sealed with, or the stored value was altered.`;
    for (const [method, path] of [
      ["GET", `/v1/webhook-endpoints/${e.id}`],
      ["GET", "/v1/webhook-endpoints"],
    ] as const) {
      const err = await expectError(await on(wrong.baseUrl, ws, path, method), 500, "misconfigured");
      expect(err.message).toBe(expected);
      expect(JSON.stringify(err)).not.toContain(e.secret);
    }
    // A delivery attempt is recorded as failed with the same reason, and nothing is sent unsigned
    // (so one endpoint's unopenable secret never stops a fan-out to the others).
    const sent = await on(wrong.baseUrl, ws, `/v1/webhook-endpoints/${e.id}/test`, "POST");
    expect(sent.status).toBe(200);
    const delivery = (await sent.json()) as { status: string; attempts: Array<{ statusCode: number | null; error: string }> };
    expect(delivery.status).toBe("failed");
    expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: `not sent: ${expected}` });
    expect(JSON.stringify(delivery)).not.toContain(e.secret);
    await vi.waitFor(() => expect(wrongLog).toContain("secret_unopenable"), { timeout: 5_000 }); // the worker's log arrives through a pipe
    expect(wrongLog).not.toContain(e.secret);
    // The worker with the right key still opens it.
    expect((await ws.api(`/v1/webhook-endpoints/${e.id}`)).status).toBe(200);
    // The CLI refuses to reseal with a wrong key, and says why.
    const run = await admin(["secrets", "reseal", "--org", ws.organizationId], `${stackKid()}:${randomBytes(32).toString("base64")}`);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`does not open with the key "${stackKid()}"`);
    expect(run.stderr + run.stdout).not.toContain(e.secret);
  });
});
