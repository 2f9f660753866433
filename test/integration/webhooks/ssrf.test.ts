// The receiver URL guard on a worker configured as in production (WEBHOOKS_ALLOW_PRIVATE_URLS
// off), at save time and again at delivery time after DNS.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QstashStandIn, startQstash } from "../../../dev/qstash";
import { freePort, startWorker } from "../../../dev/stack";
import type { DeliveryView } from "../../../src/webhooks/log";
import { startDoh } from "../../dns";
import { createWorkspace, expectError, json, stack, type Workspace } from "../../harness";

let worker: Awaited<ReturnType<typeof startWorker>>;
let doh: Awaited<ReturnType<typeof startDoh>>;

beforeAll(async () => {
  doh = await startDoh({ "hooks.example.com": ["10.0.0.8"], "mapped.example.com": ["::ffff:127.0.0.1"] });
  worker = await startWorker({ ...stack().vars, WEBHOOKS_ALLOW_PRIVATE_URLS: "0", DNS_RESOLVER_URL: doh.url, WEBHOOK_TIMEOUT_MS: "1000" });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await doh?.stop();
});

const post = (ws: Workspace, path: string, body?: unknown) =>
  fetch(worker.baseUrl + path, {
    method: "POST",
    headers: { authorization: `Bearer ${ws.apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("SSRF guard (production settings)", () => {
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
    const ws = await createWorkspace();
    const err = await expectError(
      await post(ws, "/v1/webhook-endpoints", { name: "x", url, channels: ["voice"] }),
      400,
      "validation_failed",
    );
    expect(err.issues?.[0]?.path).toBe("url");
    const test = await expectError(
      await post(ws, "/v1/webhook-endpoints", { name: "x", url: "https://hooks.example.com/x", testUrl: url, channels: ["voice"] }),
      400,
      "validation_failed",
    );
    expect(test.issues?.[0]?.path).toBe("testUrl");
  });

  it("refuses at delivery a name that resolves to a private address (checked after DNS, IPv4-mapped too)", async () => {
    const ws = await createWorkspace();
    for (const host of ["hooks.example.com", "mapped.example.com"]) {
      const created = await post(ws, "/v1/webhook-endpoints", { name: "x", url: `https://${host}/hook`, channels: ["voice"] });
      expect(created.status).toBe(201);
      const { id } = await json<{ id: string }>(created);
      const res = await post(ws, `/v1/webhook-endpoints/${id}/test`);
      const delivery = await json<DeliveryView>(res);
      expect(delivery.status).toBe("failed");
      expect(delivery.attempts[0]?.statusCode).toBeNull();
      expect(delivery.attempts[0]?.error).toMatch(/^refused: the URL resolves to a non-public address \((private|loopback)\)$/);
    }
    expect(doh.queries).toEqual(expect.arrayContaining(["hooks.example.com/A", "mapped.example.com/AAAA"]));
  });
});

describe("SSRF guard after DNS, in QStash mode", () => {
  // A DoH server that fails (SERVFAIL) for one name and answers a private address for another.
  let doh: Server;
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
            ? { Status: 0, Answer: [{ name, type, TTL: 60, data: "10.0.0.8" }] }
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

  const sendTest = async (ws: Workspace, host: string) => {
    const created = await qpost(ws, "/v1/webhook-endpoints", { name: "x", url: `https://${host}/hook`, channels: ["voice"] });
    expect(created.status).toBe(201);
    const { id } = await json<{ id: string }>(created);
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
    const { delivery, calls } = await sendTest(ws, "flaky.example.com");
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
    const { delivery, calls } = await sendTest(ws, "private.example.com");
    expect(calls).toEqual([["/internal/qstash/deliver", 200]]);
    expect(delivery).toMatchObject({ status: "failed", attemptCount: 1 });
    expect(delivery?.attempts[0]?.error).toBe("refused: the URL resolves to a non-public address (private)");
  });
});
