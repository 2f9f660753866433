// The widget's rate limits on a worker of its own with small ones (per visitor, per client
// address, per widget), the address limit applied before any database lookup (counted at a
// forwarder in front of Postgres).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startWorker } from "../../../dev/stack";
import { clearOfWindowEdge, createWorkspace, expectError, stack } from "../../support/harness";
import { PostgresCounter } from "../../support/postgres-counter";
import { createWidget, SITE, visitor, widgetRequest } from "../../support/widgets";

let limited: Awaited<ReturnType<typeof startWorker>>;
const postgres = new PostgresCounter();

beforeAll(async () => {
  const { vars } = stack();
  await postgres.start({ httpEndpoint: vars.DATABASE_HTTP_ENDPOINT as string, wsProxy: vars.DATABASE_WS_PROXY as string });
  limited = await startWorker({
    ...vars,
    ...postgres.vars,
    WIDGET_RATE_LIMIT_VISITOR: "2",
    WIDGET_RATE_LIMIT_ADDRESS: "6",
    WIDGET_RATE_LIMIT_WIDGET: "4",
    WIDGET_RATE_LIMIT_WINDOW: "60 s",
  });
}, 120_000);

afterAll(async () => {
  await limited?.stop();
  await postgres.stop();
});

/** A client address no earlier run has used (a real Redis keeps counters between runs). */
const address = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;

const send = (token: string, visitorId: string, ip: string) =>
  widgetRequest("/widget/v1/chat", {
    base: limited.baseUrl,
    token,
    json: { visitorId, message: "Hi" },
    headers: { "cf-connecting-ip": ip },
  });

describe("widget rate limits", () => {
  beforeEach(() => clearOfWindowEdge());

  it("per visitor: 429 with Retry-After and the RateLimit headers, readable by the page; other visitors go on", async () => {
    const widget = await createWidget(await createWorkspace());
    const ip = address();
    const v = visitor();
    for (let i = 0; i < 2; i++) expect((await send(widget.token, v, ip)).status).toBe(200);
    const res = await send(widget.token, v, ip);
    const body = await expectError(res, 429, "rate_limited");
    expect(body.message).toContain("2 requests per 60 s");
    expect(res.headers.get("ratelimit-policy")).toBe('"widget-visitor";q=2;w=60');
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
    expect((await send(widget.token, visitor(), ip)).status).toBe(200);
  });

  it("per widget: new visitor ids from new addresses do not get past the widget's budget", async () => {
    const widget = await createWidget(await createWorkspace());
    for (let i = 0; i < 4; i++) expect((await send(widget.token, visitor(), address())).status).toBe(200);
    const res = await send(widget.token, visitor(), address());
    await expectError(res, 429, "rate_limited");
    expect(res.headers.get("ratelimit-policy")).toBe('"widget";q=4;w=60');
    // Another widget has its own budget.
    const other = await createWidget(await createWorkspace());
    expect((await send(other.token, visitor(), address())).status).toBe(200);
  });

  it("per client address: rotating visitor ids from one address is bounded, config included", async () => {
    const widget = await createWidget(await createWorkspace());
    const ip = address();
    for (let i = 0; i < 6; i++) {
      const res = await widgetRequest("/widget/v1/config", {
        base: limited.baseUrl,
        token: widget.token,
        headers: { "cf-connecting-ip": ip },
      });
      expect(res.status).toBe(200);
    }
    const res = await send(widget.token, visitor(), ip);
    await expectError(res, 429, "rate_limited");
    expect(res.headers.get("ratelimit-policy")).toBe('"widget-address";q=6;w=60');
  });

  it("per client address, before the token is looked up: a burst of made-up tokens never reaches the database", async () => {
    const widget = await createWidget(await createWorkspace());
    const ip = address();
    // Well-formed (the shape passes), unknown: each would be one lookup in Postgres.
    const madeUp = () => `${widget.token.slice(0, -8)}${randomUUID().replace(/-/g, "").slice(0, 8)}`;
    expect(madeUp()).not.toBe(widget.token);
    const config = (token: string, from: string, init: { method?: string } = {}) =>
      widgetRequest("/widget/v1/config", { base: limited.baseUrl, token, headers: { "cf-connecting-ip": from }, ...init });
    for (let i = 0; i < 6; i++) await expectError(await config(madeUp(), ip), 401, "unauthorized");
    postgres.reset();
    for (let i = 0; i < 20; i++) {
      const res = await config(madeUp(), ip);
      const body = await expectError(res, 429, "rate_limited");
      expect(body.message).toContain("6 requests per 60 s");
      expect(res.headers.get("ratelimit-policy")).toBe('"widget-address";q=6;w=60');
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Readable by the page (the widget is not known yet, so no origin to echo): the script says why in the console.
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
    }
    // Preflights count too, and are refused without a CORS header (the browser then sends nothing).
    const preflight = await config(madeUp(), ip, { method: "OPTIONS" });
    expect(preflight.status).toBe(429);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    // The valid token is limited at this address as well (the limit is the address's, whatever the token) ...
    await expectError(await config(widget.token, ip), 429, "rate_limited");
    expect(postgres.sqlRequests).toBe(0);
    expect(postgres.connections).toBe(0);
    // ... and works from another address: looked up, answered, and its chat still goes through.
    const other = address();
    const res = await config(widget.token, other);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(postgres.sqlRequests).toBeGreaterThanOrEqual(1);
    expect((await send(widget.token, visitor(), other)).status).toBe(200);
  });
});
