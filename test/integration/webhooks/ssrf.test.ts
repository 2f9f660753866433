// The receiver URL guard on a worker configured as in production (WEBHOOKS_ALLOW_PRIVATE_URLS
// off), at save time and again at delivery time after DNS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
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
