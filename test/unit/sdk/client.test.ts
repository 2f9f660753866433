// The SDK's pure parts: Retry-After parsing, the backoff's bounds, the status → class table, URL
// building, key generation, the lazy first page, and signature parsing edge cases. What they do
// against the real worker: test/integration/sdk/.
import { describe, expect, it } from "vitest";
import { backoffMs, isRetryableStatus, newIdempotencyKey } from "../../../packages/sdk/src/core";
import { retryAfterMs } from "../../../packages/sdk/src/errors";
import {
  APIClient,
  APIError,
  AuthenticationError,
  ConflictError,
  constructEvent,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  signPayload,
  ValidationError,
  VoiceAgentPlatform,
  WebhookVerificationError,
} from "../../../packages/sdk/src/index";

const headers = (h: Record<string, string>) => new Headers(h);

describe("Retry-After", () => {
  it("reads seconds, an HTTP date and retry-after-ms; ignores what it cannot read", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    expect(retryAfterMs(headers({ "retry-after": "3" }), now)).toBe(3_000);
    expect(retryAfterMs(headers({ "retry-after": "0" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after": "Mon, 23 Nov 2026 10:00:05 GMT" }), now)).toBe(5_000);
    expect(retryAfterMs(headers({ "retry-after": "Mon, 23 Nov 2026 09:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(retryAfterMs(headers({ "retry-after": "-1" }), now)).toBeNull();
    expect(retryAfterMs(headers({}), now)).toBeNull();
  });

  it("gives RateLimitError its retryAfter in seconds", () => {
    const err = APIError.from(429, undefined, headers({ "retry-after": "7" }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(7);
    expect((APIError.from(429, undefined, headers({})) as RateLimitError).retryAfter).toBeNull();
  });
});

describe("backoff", () => {
  it("doubles from 0.5 s up to 8 s, shortened by at most a quarter", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect([0, 1, 4].map((n) => backoffMs(n, () => 0.999999))).toEqual([375, 750, 6000]);
    for (let i = 0; i < 100; i++) {
      const ms = backoffMs(2);
      expect(ms).toBeGreaterThanOrEqual(1500);
      expect(ms).toBeLessThanOrEqual(2000);
    }
  });

  it("retries 408, 429 and 5xx, nothing else", () => {
    expect([408, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 402, 403, 404, 409, 413, 415, 422].some(isRetryableStatus)).toBe(false);
  });
});

describe("error classes", () => {
  it("maps each status to its family, and reads the one error body", () => {
    const table: Array<[number, unknown]> = [
      [400, ValidationError],
      [413, ValidationError],
      [415, ValidationError],
      [422, ValidationError],
      [401, AuthenticationError],
      [402, InsufficientCreditsError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [409, ConflictError],
      [429, RateLimitError],
      [500, InternalServerError],
      [503, InternalServerError],
    ];
    for (const [status, Class] of table) expect(APIError.from(status, undefined, headers({}))).toBeInstanceOf(Class as typeof APIError);
    const body = { statusCode: 404, error: "Not Found", code: "not_found" as const, message: "No such agent.", requestId: "r-1" };
    const err = APIError.from(404, body, headers({ "x-request-id": "r-1" }));
    expect(err).toMatchObject({ status: 404, code: "not_found", message: "No such agent.", requestId: "r-1", name: "NotFoundError" });
    const foreign = APIError.from(502, "<html>Bad gateway</html>", headers({}));
    expect(foreign).toMatchObject({ status: 502, code: "unknown_error", requestId: null, message: "<html>Bad gateway</html>" });
  });
});

describe("requests", () => {
  const client = new APIClient({ apiKey: "sk-live-x", baseURL: "https://api.example.test/" });

  it("fills path parameters (encoded) and the query (skipping undefined and null)", () => {
    expect(client.url("getAgent", { id: "a/b c" })).toBe("https://api.example.test/v1/agents/a%2Fb%20c");
    expect(client.url("listAgents", {}, { limit: 5, cursor: undefined, name: null, voiceId: "v" })).toBe(
      "https://api.example.test/v1/agents?limit=5&voiceId=v",
    );
    expect(() => client.url("getAgent", {})).toThrow(/`id` is required/);
  });

  it("refuses a client without an API key or a base URL", () => {
    expect(() => new VoiceAgentPlatform({ apiKey: "", baseURL: "http://x" })).toThrow(/apiKey/);
    expect(() => new VoiceAgentPlatform({ apiKey: "sk-live-x", baseURL: "" })).toThrow(/baseURL/);
  });

  it("generates distinct, printable Idempotency-Keys", () => {
    const keys = new Set(Array.from({ length: 100 }, newIdempotencyKey));
    expect(keys.size).toBe(100);
    for (const k of keys) expect(k).toMatch(/^sdk-[\x21-\x7e]{1,251}$/);
  });

  it("sends nothing for a list until it is awaited or iterated", async () => {
    const seen: string[] = [];
    const sdk = new VoiceAgentPlatform({
      apiKey: "sk-live-x",
      baseURL: "https://api.example.test",
      fetch: async (input) => {
        seen.push(String(input));
        return Response.json({ data: [], nextCursor: null, hasMore: false });
      },
    });
    const pending = sdk.agents.list({ limit: 2 });
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([]);
    expect((await pending).data).toEqual([]);
    expect(seen).toEqual(["https://api.example.test/v1/agents?limit=2"]);
  });
});

describe("signatures", () => {
  const body = JSON.stringify({
    deliveryId: "d",
    event: "call.started",
    channel: "voice",
    timestamp: "2026-11-23T10:00:00.000Z",
    call: null,
  });

  it("accepts a header with several v1 values when one matches, in any order, with spaces", async () => {
    const good = await signPayload(body, "whs_a");
    const other = await signPayload(body, "whs_b");
    const t = /t=(\d+)/.exec(good)?.[1];
    const v1 = (h: string) => /v1=([0-9a-f]+)/.exec(h)?.[1];
    const header = `v1=${v1(other)}, t=${t}, v1=${v1(good)}`;
    await expect(constructEvent(body, header, "whs_a")).resolves.toMatchObject({ event: "call.started" });
    await expect(constructEvent(body, `t=${t},v1=${v1(other)}`, "whs_a")).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  it("refuses a signature of the wrong length, a non-hex one, and a future timestamp beyond the tolerance", async () => {
    const t = Math.floor(Date.now() / 1000);
    await expect(constructEvent(body, `t=${t},v1=abcd`, "whs_a")).rejects.toThrow(/malformed/);
    await expect(constructEvent(body, `t=${t},v1=${"zz".repeat(32)}`, "whs_a")).rejects.toThrow(/malformed/);
    const future = await signPayload(body, "whs_a", t + 600);
    await expect(constructEvent(body, future, "whs_a")).rejects.toThrow(/tolerance/);
  });

  it("takes the request's headers, and then refuses an X-Service-Delivery-Id other than the signed deliveryId", async () => {
    const header = await signPayload(body, "whs_a");
    const sent = (id: string) => new Headers({ "X-Service-Signature": header, "X-Service-Delivery-Id": id });
    await expect(constructEvent(body, sent("d"), "whs_a")).resolves.toMatchObject({ deliveryId: "d" });
    await expect(constructEvent(body, { "x-service-signature": header }, "whs_a")).resolves.toMatchObject({ deliveryId: "d" });
    await expect(constructEvent(body, sent("e"), "whs_a")).rejects.toThrow(/X-Service-Delivery-Id header does not match/);
  });

  it("refuses a signed body that is not an event", async () => {
    const header = await signPayload("[1,2]", "whs_a");
    await expect(constructEvent("[1,2]", header, "whs_a")).rejects.toThrow(/not a webhook event/);
    const text = await signPayload("hello", "whs_a");
    await expect(constructEvent("hello", text, "whs_a")).rejects.toThrow(/not JSON/);
  });
});
