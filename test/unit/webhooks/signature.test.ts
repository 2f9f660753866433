// Our signatures against Stripe's own verifier, and the receiver snippet of docs/webhooks.md.
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildPayload, LEAF_PATHS, shapePayload } from "../../../src/webhooks/payload";
import { signPayload } from "../../../src/webhooks/signature";
import { stripeAccepts } from "../../support/stripe";

const secret = "whs_0123456789abcdefghijABCDEFGHIJ0123456789";
const body = JSON.stringify({ deliveryId: "d1", event: "call.completed", text: "héllo ✓ 你好" });

async function docSnippet(): Promise<(raw: string, header: string, secret: string, tolerance?: number) => boolean> {
  const doc = readFileSync(new URL("../../../docs/webhooks.md", import.meta.url), "utf8");
  const code = /```js\n([\s\S]*?verifyWebhook[\s\S]*?)```/.exec(doc)?.[1];
  if (!code) throw new Error("docs/webhooks.md lost its verification snippet");
  const file = join(tmpdir(), `verify-${process.pid}-${Date.now()}.mjs`);
  writeFileSync(file, code);
  return (await import(file)).verifyWebhook;
}

describe("webhook signatures", () => {
  it("are accepted by Stripe's verifier and by the docs' snippet", async () => {
    const header = await signPayload(secret, body);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripeAccepts(body, header, secret)).toBe(true);
    expect((await docSnippet())(body, header, secret)).toBe(true);
  });

  // A rotated-out secret is a wrong secret here; rotation itself is proven end to end in
  // test/integration/webhooks (happy.test.ts and qstash.test.ts).
  it("reject a tampered body, a wrong secret, an old timestamp, a changed signature digit and garbage", async () => {
    const verify = await docSnippet();
    // Pick a recent t whose HMAC starts with "0": the case where overwriting the first digit
    // with "0" changed nothing and the test passed by accident about one run in sixteen.
    let header = await signPayload(secret, body);
    for (let back = 1; !header.includes("v1=0") && back < 250; back++) {
      header = await signPayload(secret, body, Math.floor(Date.now() / 1000) - back);
    }
    expect(header).toContain("v1=0");
    expect(stripeAccepts(body, header, secret)).toBe(true);
    const tampered = body.replace("call.completed", "call.failed");
    const old = await signPayload(secret, body, Math.floor(Date.now() / 1000) - 301);
    // Change the first hex digit of the HMAC to a different one (never a no-op).
    const flipped = header.replace(/v1=(.)/, (_, d: string) => `v1=${d === "0" ? "1" : "0"}`);
    expect(flipped).not.toBe(header);
    const cases: Array<[string, string, string]> = [
      [tampered, header, secret],
      [body, header, "whs_wrong"],
      [body, old, secret],
      [body, flipped, secret],
      [body, "garbage", secret],
    ];
    for (const [b, h, s] of cases) {
      expect(stripeAccepts(b, h, s)).toBe(false);
      expect(verify(b, h, s)).toBe(false);
    }
  });
});

describe("payload", () => {
  it("carries recording.durationSeconds as a string and nulls what is not ready", () => {
    const p = buildPayload({
      deliveryId: "d",
      event: "call.completed",
      channel: "voice",
      timestamp: new Date(0),
      data: { call: { id: "c" }, recording: { url: "https://r", durationSeconds: 12 } },
    });
    expect(p.recording).toEqual({ url: "https://r", durationSeconds: "12" });
    expect(p).toMatchObject({ transcript: null, analysis: null, report: null, metadata: null });
    expect((p.call as Record<string, unknown>).status).toBeNull();
  });

  it("shapes every documented leaf path, keeping nesting and the envelope", () => {
    const full = buildPayload({
      deliveryId: "d",
      event: "call.analyzed",
      channel: "voice",
      timestamp: new Date(0),
      data: { call: { id: "c", status: "completed" }, analysis: { summary: "s", sentiment: "positive", topics: ["a"], actionItems: [] } },
    });
    const shaped = shapePayload(full, ["call.status", "analysis.topics", "chat.id"]);
    expect(shaped).toEqual({
      deliveryId: "d",
      event: "call.analyzed",
      timestamp: full.timestamp,
      call: { status: "completed" },
      analysis: { topics: ["a"] },
    });
    expect(LEAF_PATHS).toContain("report.extractedData");
  });
});
