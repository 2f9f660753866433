// Every way a webhook request is refused, and every way a delivery fails. Endpoints: bad fields,
// an empty PATCH, custom payload paths, a missing URL, and the dashboard's refusal to a member.
// Direct-mode delivery: a resend to an inactive endpoint, network errors and redirects (not
// followed), 410 Gone and the disable threshold turning an endpoint off, and a secret that does
// not open. The receiver URL guard (SSRF) on a worker configured as in production
// (WEBHOOKS_ALLOW_PRIVATE_URLS off), at save time (shape, port, and the name's addresses, over
// the test resolver) and again at delivery time after DNS; no test here reaches real DNS:
// DNS_RESOLVER_URL is test/support/dns.ts.
import { createServer, type Server } from "node:http";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QstashStandIn, startQstash } from "../../../dev/qstash";
import { freePort, startWorker } from "../../../dev/stack";
import { csrfToken } from "../../../src/dashboard/session";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../../../src/db/schema";
import { newId } from "../../../src/lib/ids";
import type { Page } from "../../../src/lib/pagination";
import type { EndpointView } from "../../../src/webhooks/endpoints";
import type { DeliveryView } from "../../../src/webhooks/log";
import { deliveries, receiversPerTest, sendTest } from "../../support/deliveries";
import { startDoh } from "../../support/dns";
import { addMemberTo, createWorkspace, expectError, json, request, signIn, stack, testDb, type Workspace } from "../../support/harness";
import { createEndpoint, emitNow, refused } from "../../support/webhooks";

const { receiver, receivers } = receiversPerTest();

describe("webhook endpoints", () => {
  it("refuses an empty PATCH", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, { url: "https://hooks.example.com/a" });
    const err = await expectError(await ws.api(`/v1/webhook-endpoints/${e.id}`, { method: "PATCH", json: {} }), 400, "validation_failed");
    expect(err.message).toMatch(/at least one field/);
  });

  it("custom payload mode needs known leaf paths", async () => {
    const ws = await createWorkspace();
    const e = await createEndpoint(ws, {
      url: "https://hooks.example.com/a",
      payloadMode: "custom",
      customFields: ["call.id", "transcript.fullText"],
    });
    expect(e.customFields).toEqual(["call.id", "transcript.fullText"]);
    await expectError(
      await ws.api("/v1/webhook-endpoints", {
        method: "POST",
        json: { name: "x", url: "https://a.example.com", channels: ["voice"], payloadMode: "custom", customFields: ["call.secretField"] },
      }),
      400,
      "validation_failed",
    );
    await refused(ws, { url: "https://a.example.com", payloadMode: "custom", customFields: [] }, "customFields");
  });

  it("the database refuses a delivery that names another workspace's endpoint (organization and endpoint are one foreign key)", async () => {
    const [mine, theirs] = await Promise.all([createWorkspace(), createWorkspace()]);
    const e = await createEndpoint(theirs, { url: "https://hooks.example.com/a" });
    const delivery = (organizationId: string) => ({
      id: newId(),
      organizationId,
      endpointId: e.id,
      eventId: newId(),
      event: "call.completed",
      payload: JSON.stringify({ event: "call.completed" }),
    });
    const refusal = await testDb()
      .insert(webhookDeliveries)
      .values(delivery(mine.organizationId))
      .then(
        () => null,
        (err: { constraint?: string; cause?: { constraint?: string } }) => err,
      );
    expect(refusal?.cause?.constraint ?? refusal?.constraint).toBe("webhook_deliveries_endpoint_fk");
    await testDb().insert(webhookDeliveries).values(delivery(theirs.organizationId)); // its own workspace's: accepted
    const rows = await testDb().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, e.id));
    expect(rows.map((d) => d.organizationId)).toEqual([theirs.organizationId]);
  });

  it("needs a URL unless the test receiver is used, and a test URL in test mode", async () => {
    const ws = await createWorkspace();
    await refused(ws, {}, "url");
    await refused(ws, { url: "https://a.example.com", testMode: true }, "testUrl");
    const e = await createEndpoint(ws, { useTestReceiver: true });
    expect(e.url).toBeNull();
  });

  it("validates types, unknown fields, sizes and ids", async () => {
    const ws = await createWorkspace();
    const post = (body: unknown) => ws.api("/v1/webhook-endpoints", { method: "POST", json: body });
    await expectError(await post({ name: 5, url: "https://a.example.com", channels: ["voice"] }), 400, "validation_failed");
    await expectError(
      await post({ name: "x", url: "https://a.example.com", channels: ["voice"], secret: "whs_mine" }),
      400,
      "validation_failed",
    );
    await expectError(await post({ name: "x".repeat(101), url: "https://a.example.com", channels: ["voice"] }), 400, "validation_failed");
    await expectError(
      await post({ name: "x", url: `https://a.example.com/${"p".repeat(2100)}`, channels: ["voice"] }),
      400,
      "validation_failed",
    );
    await expectError(
      await post({ name: "x", url: "https://a.example.com", channels: ["voice"], active: "yes" }),
      400,
      "validation_failed",
    );
    await expectError(await ws.api("/v1/webhook-endpoints/not-a-uuid"), 400, "validation_failed");
    const named = await createEndpoint(ws, { name: "Продакшн 🚀 שלום", url: "https://a.example.com" });
    expect(named.name).toBe("Продакшн 🚀 שלום");
  });

  it("is the same in the dashboard for an admin, and refused to a member (admin access required)", async () => {
    const ws = await createWorkspace();
    const { cookie } = await signIn(ws.admin.email, ws.admin.password);
    const headers = { cookie, "x-organization-id": ws.organizationId };
    const created = await request("/dashboard/api/webhook-endpoints", {
      method: "POST",
      json: { name: "d", url: "https://a.example.com", channels: ["voice"] },
      headers,
    });
    expect(created.status).toBe(201);
    const e = await json<EndpointView>(created);
    expect((await json<Page<EndpointView>>(await ws.api("/v1/webhook-endpoints"))).data.map((x) => x.id)).toContain(e.id);

    const member = await addMemberTo(ws, "member");
    const m = await signIn(member.email, member.password);
    const mh = { cookie: m.cookie, "x-organization-id": ws.organizationId };
    const denied = await expectError(await request("/dashboard/api/webhook-endpoints", { headers: mh }), 403, "forbidden");
    expect(denied.message).toMatch(/Admin access required/);
    await expectError(await request("/v1/webhook-endpoints", { headers: mh }), 403, "forbidden");
    await expectError(await request(`/webhooks/${e.id}/deliveries`, { headers: mh }), 403, "forbidden");
  });
});

describe("webhook delivery (direct mode)", () => {
  it("resending a delivery of an inactive endpoint is a 409, whether a user or the service turned it off", async () => {
    const ws = await createWorkspace();
    const r = await receiver((n) => (n === 1 ? { status: 500 } : { status: 410 }));
    const endpoint = await createEndpoint(ws, { url: r.url });
    const failed = await sendTest(ws, endpoint.id);
    const resend = () => ws.api(`/v1/webhook-endpoints/${endpoint.id}/deliveries/${failed.id}/resend`, { method: "POST" });

    await ws.api(`/v1/webhook-endpoints/${endpoint.id}`, { method: "PATCH", json: { active: false } });
    const off = await expectError(await resend(), 409, "conflict");
    expect(off.message).toBe("The endpoint is inactive: turn it on before resending.");
    expect(r.received).toHaveLength(1);

    // On again; the resend gets 410 Gone and the service turns the endpoint off.
    await ws.api(`/v1/webhook-endpoints/${endpoint.id}`, { method: "PATCH", json: { active: true } });
    expect(await json<DeliveryView>(await resend())).toMatchObject({ status: "failed", attemptCount: 2, lastStatusCode: 410 });
    await expectError(await resend(), 409, "conflict");
    expect(r.received).toHaveLength(2);
    const [logged] = (await deliveries(ws, endpoint.id)).data;
    expect(logged).toMatchObject({ id: failed.id, attemptCount: 2 });
  });

  it("records a network error, and does not follow redirects", async () => {
    const ws = await createWorkspace();
    const target = await receiver();
    const redirecting = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const endpoint = await createEndpoint(ws, { url: redirecting.url });
    const d = await sendTest(ws, endpoint.id);
    expect(d.attempts[0]).toMatchObject({ statusCode: 302, error: "redirects are not followed" });
    expect(d.status).toBe("failed");
    expect(target.received).toHaveLength(0);

    const dead = await receiver();
    const deadUrl = dead.url;
    await dead.stop();
    receivers.splice(receivers.indexOf(dead), 1);
    const down = await createEndpoint(ws, { url: deadUrl });
    const failed = await sendTest(ws, down.id);
    expect(failed.attempts[0]?.statusCode).toBeNull();
    expect(failed.attempts[0]?.error).toMatch(/^network error/);
  });

  it("turns an endpoint off when the receiver answers 410 Gone", async () => {
    const ws = await createWorkspace();
    const r = await receiver(() => ({ status: 410 }));
    const endpoint = await createEndpoint(ws, { url: r.url, events: "all" });
    await emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "c" } } });
    const after = await json<{ active: boolean; disabledReason: string | null }>(await ws.api(`/v1/webhook-endpoints/${endpoint.id}`));
    expect(after).toMatchObject({ active: false, disabledReason: expect.stringContaining("410") });
    const again = await emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "c2" } } });
    expect(again.deliveryIds).toEqual([]);
    const reenabled = await ws.api(`/v1/webhook-endpoints/${endpoint.id}`, { method: "PATCH", json: { active: true } });
    expect(await json<{ active: boolean; disabledReason: string | null }>(reenabled)).toMatchObject({ active: true, disabledReason: null });
  });

  it("turns an endpoint off after WEBHOOK_DISABLE_AFTER_FAILURES final failures in a row, as configured", async () => {
    const ws = await createWorkspace();
    const failing = await receiver(() => ({ status: 500, body: "no" }));
    const endpoint = await createEndpoint(ws, { url: failing.url, events: "all" });
    const emitOnce = () =>
      emitNow(
        { organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "t" } } },
        { WEBHOOK_DISABLE_AFTER_FAILURES: "2" },
      );
    await emitOnce();
    const [first] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(first).toMatchObject({ consecutiveFailures: 1, active: true, disabledReason: null });
    await emitOnce();
    const [second] = await testDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(second).toMatchObject({
      consecutiveFailures: 2,
      active: false,
      disabledReason: "Turned off after 2 failed deliveries in a row.",
    });
  });

  it("a secret that does not open is recorded as a failed attempt, sends nothing unsigned, and the rest of the fan-out goes on", async () => {
    const ws = await createWorkspace();
    const r = await receiver(() => ({ status: 200, body: "ok" }));
    const fine = await createEndpoint(ws, { url: r.url, events: "all" });
    const broken = await createEndpoint(ws, { url: r.url, events: "all" });
    await testDb().update(webhookEndpoints).set({ secret: "v1:gone:AAAAAAAAAAAAAAAA:AAAA" }).where(eq(webhookEndpoints.id, broken.id));
    const { deliveryIds } = await emitNow({ organizationId: ws.organizationId, event: "call.completed", data: { call: { id: "k" } } });
    expect(deliveryIds).toHaveLength(2);
    expect(r.received).toHaveLength(1);
    expect(r.received[0]?.headers["x-service-signature"]).toBeTruthy();
    const attempts = await testDb().select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds));
    expect(attempts.find((a) => a.endpointId === fine.id)).toMatchObject({ statusCode: 200, error: null });
    expect(attempts.find((a) => a.endpointId === broken.id)).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^not sent: /),
    });
  });
});

// -- The receiver URL guard (SSRF), on workers with production settings ---------------------------

let worker: Awaited<ReturnType<typeof startWorker>>;
let doh: Awaited<ReturnType<typeof startDoh>>;

/** What the test resolver answers; tests change entries to turn a saved name private. */
const PUBLIC = "93.184.216.34";
const dns: Record<string, string[]> = {
  "hooks.example.com": [PUBLIC],
  "v6.example.com": ["2606:4700::1111"],
  // Public names of private addresses, as wildcard DNS services answer them.
  "localtest.me": ["127.0.0.1", "::1"],
  "app.localtest.me": ["127.0.0.1"],
  "127.0.0.1.nip.io": ["127.0.0.1"],
  "10.0.0.8.sslip.io": ["10.0.0.8"],
  "metadata.example.com": ["169.254.169.254"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
  "ula.example.com": ["fd00::5"],
  "mixed.example.com": [PUBLIC, "192.168.1.20"],
  "rebind.example.com": [PUBLIC],
  "rebind-mapped.example.com": [PUBLIC],
};

const send = (ws: Workspace, method: string, path: string, body?: unknown) =>
  fetch(worker.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const post = (ws: Workspace, path: string, body?: unknown) => send(ws, "POST", path, body);

type Saved = { id: string; url: string | null; warnings: Array<{ path: string; code: string; message: string }> };

/** Refused on create as `url` and as `testUrl`, and on PATCH; returns the first refusal's message. */
async function refusedEverywhere(ws: Workspace, url: string): Promise<string> {
  const err = await expectError(await post(ws, "/v1/webhook-endpoints", { name: "x", url, channels: ["voice"] }), 400, "validation_failed");
  expect(err.issues?.[0]?.path).toBe("url");
  const test = await expectError(
    await post(ws, "/v1/webhook-endpoints", { name: "x", url: "https://hooks.example.com/x", testUrl: url, channels: ["voice"] }),
    400,
    "validation_failed",
  );
  expect(test.issues?.[0]?.path).toBe("testUrl");
  const created = await post(ws, "/v1/webhook-endpoints", { name: "x", url: "https://hooks.example.com/x", channels: ["voice"] });
  expect(created.status).toBe(201);
  const { id } = await json<Saved>(created);
  const patched = await expectError(await send(ws, "PATCH", `/v1/webhook-endpoints/${id}`, { url }), 400, "validation_failed");
  expect(patched.issues?.[0]?.path).toBe("url");
  return err.issues?.[0]?.message ?? "";
}

describe("SSRF guard (production settings)", () => {
  beforeAll(async () => {
    doh = await startDoh(dns);
    worker = await startWorker({
      ...stack().vars,
      WEBHOOKS_ALLOW_PRIVATE_URLS: "0",
      DNS_RESOLVER_URL: doh.url,
      WEBHOOK_TIMEOUT_MS: "1000",
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await doh?.stop();
  });

  it.each([
    "http://127.0.0.1:9/hook",
    "https://127.0.0.1/hook",
    "https://localhost/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://[::127.0.0.1]/hook",
    "https://[::a00:1]/hook",
    "https://169.254.169.254/latest",
    "https://10.1.2.3/x",
    "https://user:pw@hooks.example.com/x",
  ])("refuses to save %s", async (url) => {
    await refusedEverywhere(await createWorkspace(), url);
  });

  // Every way of writing a private IPv4 or IPv6 literal that URL parsers accept.
  it.each([
    ["https://2130706433/x", "loopback"], // 127.0.0.1 as one decimal number
    ["https://0x7f000001/x", "loopback"], // … as one hex number
    ["https://0177.0.0.1/x", "loopback"], // octal first part
    ["https://0x7f.1/x", "loopback"], // hex, two parts
    ["https://127.1/x", "loopback"], // short form
    ["https://127.0.0.1./x", "loopback"], // trailing dot
    ["https://0.0.0.0/x", "unspecified"],
    ["https://0/x", "unspecified"],
    ["https://[::1]/x", "loopback"],
    ["https://[0:0:0:0:0:0:0:1]/x", "loopback"],
    ["https://[::ffff:7f00:1]/x", "loopback"],
    ["https://[0:0:0:0:0:ffff:10.0.0.1]/x", "private"],
    ["https://[fe80::1]/x", "linkLocal"],
    ["https://[fd00::1]/x", "uniqueLocal"],
    ["https://[64:ff9b::7f00:1]/x", "rfc6052"],
    ["https://100.64.0.1/x", "carrierGradeNat"],
    ["https://0xa9.0xfe.0xa9.0xfe/latest", "linkLocal"], // 169.254.169.254 in hex
  ])("refuses the IP literal %s (%s)", async (url, why) => {
    const message = await refusedEverywhere(await createWorkspace(), url);
    expect(message).toContain(why);
  });

  it.each([
    ["https://localtest.me/hook", "loopback"],
    ["https://app.localtest.me/hook", "loopback"],
    ["https://127.0.0.1.nip.io/hook", "loopback"],
    ["https://10.0.0.8.sslip.io/hook", "private"],
    ["https://metadata.example.com/latest", "linkLocal"],
    ["https://mapped.example.com/hook", "loopback"],
    ["https://ula.example.com/hook", "uniqueLocal"],
    ["https://mixed.example.com/hook", "private"],
  ])("refuses to save the public name %s of a private address (%s), after asking the resolver", async (url, why) => {
    const host = new URL(url).hostname;
    const message = await refusedEverywhere(await createWorkspace(), url);
    expect(message).toBe(`the URL resolves to a non-public address (${why})`);
    expect(doh.queries).toEqual(expect.arrayContaining([`${host}/A`, `${host}/AAAA`]));
  });

  it.each([
    "https://hooks.example.com:8080/hook",
    "https://hooks.example.com:80/hook",
    "https://hooks.example.com:22/x",
    "https://8.8.8.8:6379/",
  ])("refuses the port of %s", async (url) => {
    expect(await refusedEverywhere(await createWorkspace(), url)).toBe("the URL must use port 443 or 8443");
  });

  it("saves a public name on 443 or 8443 with no warning", async () => {
    const ws = await createWorkspace();
    for (const url of ["https://hooks.example.com/hook", "https://hooks.example.com:443/hook", "https://v6.example.com:8443/hook"]) {
      const res = await post(ws, "/v1/webhook-endpoints", { name: "x", url, channels: ["voice"] });
      expect(res.status).toBe(201);
      expect((await json<Saved>(res)).warnings).toEqual([]);
    }
  });

  it("the dashboard refuses the same names and ports, on its JSON API and its form", async () => {
    const ws = await createWorkspace();
    const { cookie, token } = await signIn(ws.admin.email, ws.admin.password);
    const headers = { cookie, "x-organization-id": ws.organizationId, "content-type": "application/json" };
    for (const url of ["https://localtest.me/hook", "https://hooks.example.com:8080/hook"]) {
      const res = await fetch(`${worker.baseUrl}/dashboard/api/webhook-endpoints`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "d", url, channels: ["voice"] }),
      });
      expect((await expectError(res, 400, "validation_failed")).issues?.[0]?.path).toBe("url");
    }
    const form = new URLSearchParams({ _csrf: await csrfToken(token), name: "d", url: "https://127.0.0.1.nip.io/hook", channels: "voice" });
    const page = await fetch(`${worker.baseUrl}/dashboard/webhooks`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: worker.baseUrl },
      body: form,
      redirect: "manual",
    });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("the URL resolves to a non-public address (loopback)");
  });

  it("saves with a dns_unavailable warning when the resolver cannot be reached, and the attempt still refuses a private answer", async () => {
    const ws = await createWorkspace();
    dns["later-private.example.com"] = ["10.0.0.8"];
    doh.unreachable = true;
    let id: string;
    try {
      const res = await post(ws, "/v1/webhook-endpoints", {
        name: "x",
        url: "https://later-private.example.com/hook",
        channels: ["voice"],
      });
      expect(res.status).toBe(201);
      const saved = await json<Saved>(res);
      id = saved.id;
      expect(saved.warnings).toEqual([
        {
          path: "url",
          code: "dns_unavailable",
          message: expect.stringMatching(
            /^Saved without the address check: the URL could not be resolved \(.+\)\. It is checked again before every delivery\.$/,
          ),
        },
      ]);
      // PATCH says the same; a PATCH that names no URL resolves nothing and warns of nothing.
      const patched = await json<Saved>(await send(ws, "PATCH", `/v1/webhook-endpoints/${id}`, { testUrl: "https://hooks.example.com/t" }));
      expect(patched.warnings.map((w) => [w.path, w.code])).toEqual([["testUrl", "dns_unavailable"]]);
      const renamed = await json<Saved>(await send(ws, "PATCH", `/v1/webhook-endpoints/${id}`, { name: "renamed" }));
      expect(renamed.warnings).toEqual([]);
      // While the resolver is down, the attempt fails as a DNS failure (retried in QStash mode), never sent.
      const down = await json<DeliveryView>(await post(ws, `/v1/webhook-endpoints/${id}/test`));
      expect(down.attempts[0]?.error).toMatch(/^DNS lookup failed: the URL could not be resolved/);
    } finally {
      doh.unreachable = false;
    }
    const delivery = await json<DeliveryView>(await post(ws, `/v1/webhook-endpoints/${id}/test`));
    expect(delivery.status).toBe("failed");
    expect(delivery.attempts.at(-1)?.error).toBe("refused: the URL resolves to a non-public address (private)");
  });

  it("saves a name without addresses with a dns_no_address warning", async () => {
    const ws = await createWorkspace();
    const res = await post(ws, "/v1/webhook-endpoints", { name: "x", url: "https://not-yet.example.com/hook", channels: ["voice"] });
    expect(res.status).toBe(201);
    expect((await json<Saved>(res)).warnings).toEqual([
      {
        path: "url",
        code: "dns_no_address",
        message: "The URL does not resolve to any address yet: deliveries fail until it resolves to a public address.",
      },
    ]);
  });

  it("refuses at delivery a saved name that now resolves to a private address (checked after DNS, IPv4-mapped too)", async () => {
    const ws = await createWorkspace();
    for (const [host, turnsInto] of [
      ["rebind.example.com", "10.0.0.8"],
      ["rebind-mapped.example.com", "::ffff:127.0.0.1"],
    ] as const) {
      const created = await post(ws, "/v1/webhook-endpoints", { name: "x", url: `https://${host}/hook`, channels: ["voice"] });
      expect(created.status).toBe(201);
      const { id } = await json<{ id: string }>(created);
      dns[host] = [turnsInto];
      const res = await post(ws, `/v1/webhook-endpoints/${id}/test`);
      const delivery = await json<DeliveryView>(res);
      expect(delivery.status).toBe("failed");
      expect(delivery.attempts[0]?.statusCode).toBeNull();
      expect(delivery.attempts[0]?.error).toMatch(/^refused: the URL resolves to a non-public address \((private|loopback)\)$/);
    }
    expect(doh.queries).toEqual(expect.arrayContaining(["rebind.example.com/A", "rebind-mapped.example.com/AAAA"]));
  });
});

describe("SSRF guard after DNS, in QStash mode", () => {
  // A DoH server that fails (SERVFAIL) for one name, and answers a public address for another
  // until the test turns it private (after the endpoint was saved).
  let doh: Server;
  let privateAnswer = PUBLIC;
  let qstash: QstashStandIn;
  let q: Awaited<ReturnType<typeof startWorker>>;

  beforeAll(async () => {
    doh = createServer((req, res) => {
      const params = new URL(req.url ?? "/", "http://x").searchParams;
      const name = params.get("name") ?? "";
      const type = params.get("type") === "AAAA" ? 28 : 1;
      const body =
        name === "flaky.example.com"
          ? { Status: 2 }
          : name === "private.example.com" && type === 1
            ? { Status: 0, Answer: [{ name, type, TTL: 60, data: privateAnswer }] }
            : { Status: 0 };
      res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => doh.listen(0, "127.0.0.1", resolve));
    const addr = doh.address();
    if (!addr || typeof addr === "string") throw new Error("doh did not bind");
    qstash = await startQstash();
    const port = await freePort();
    q = await startWorker(
      {
        ...stack().vars,
        WEBHOOKS_ALLOW_PRIVATE_URLS: "0",
        DNS_RESOLVER_URL: `http://127.0.0.1:${addr.port}/dns-query`,
        QSTASH_TOKEN: qstash.token,
        QSTASH_URL: qstash.url,
        QSTASH_CURRENT_SIGNING_KEY: qstash.currentSigningKey,
        QSTASH_NEXT_SIGNING_KEY: qstash.nextSigningKey,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_MAX_RETRIES: "2",
      },
      { port },
    );
  }, 120_000);

  afterAll(async () => {
    await q?.stop();
    await qstash?.stop();
    doh?.closeAllConnections();
    await new Promise<void>((resolve) => (doh ? doh.close(() => resolve()) : resolve()));
  });

  const qpost = (ws: Workspace, path: string, body?: unknown) =>
    fetch(q.baseUrl + path, {
      method: "POST",
      headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const testThroughQstash = async (ws: Workspace, host: string, afterSave = () => {}) => {
    const created = await qpost(ws, "/v1/webhook-endpoints", { name: "x", url: `https://${host}/hook`, channels: ["voice"] });
    expect(created.status).toBe(201);
    const { id } = await json<{ id: string }>(created);
    afterSave();
    const before = qstash.deliveries.length;
    expect((await qpost(ws, `/v1/webhook-endpoints/${id}/test`)).status).toBe(200);
    await qstash.idle();
    const log = await json<{ data: DeliveryView[] }>(
      await fetch(`${q.baseUrl}/webhooks/${id}/deliveries`, { headers: { authorization: `Bearer ${ws.apiKey}` } }),
    );
    const calls = qstash.deliveries.slice(before).map((d) => [new URL(d.url).pathname, d.status]);
    return { delivery: log.data[0], calls };
  };

  it("a failed DNS lookup is retried (502 to QStash), not refused", async () => {
    const ws = await createWorkspace();
    const { delivery, calls } = await testThroughQstash(ws, "flaky.example.com");
    expect(calls).toEqual([
      ["/internal/qstash/deliver", 502],
      ["/internal/qstash/deliver", 502],
      ["/internal/qstash/deliver", 502],
      ["/internal/qstash/failed", 200],
    ]);
    expect(delivery).toMatchObject({ status: "failed", attemptCount: 3 });
    for (const a of delivery?.attempts ?? []) {
      expect(a.statusCode).toBeNull();
      expect(a.error).toMatch(/^DNS lookup failed: the URL could not be resolved \(resolver answered SERVFAIL\)$/);
    }
  });

  it("a name resolving to a private address is refused for good: one attempt, no retry", async () => {
    const ws = await createWorkspace();
    const { delivery, calls } = await testThroughQstash(ws, "private.example.com", () => {
      privateAnswer = "10.0.0.8";
    });
    expect(calls).toEqual([["/internal/qstash/deliver", 200]]);
    expect(delivery).toMatchObject({ status: "failed", attemptCount: 1 });
    expect(delivery?.attempts[0]?.error).toBe("refused: the URL resolves to a non-public address (private)");
  });
});
