// The OTLP/HTTP JSON span exporter (src/lib/otlp.ts): the configuration (endpoint, headers), the
// encoding a collector reads, and exports to a receiver on 127.0.0.1 that answers, refuses, takes
// only part, or never answers: none of them throws, and no header value reaches a log line.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { envSchema } from "../../../src/env";
import {
  encodeSpans,
  exportSpans,
  newSpanId,
  newTraceId,
  type OtlpConfig,
  otlpConfig,
  parseOtlpHeaders,
  type Span,
  traceIdOf,
  tracesUrl,
  unixNano,
} from "../../../src/lib/otlp";

const SECRET = "api-key-that-must-not-show";

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server | null = null;

/** A receiver on 127.0.0.1: records each request and hands `answer` the response (left open, it hangs). */
async function receiver(answer: (res: ServerResponse) => void): Promise<{ base: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, received };
}

afterEach(async () => {
  const s = server;
  server = null;
  if (!s) return;
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
});

const config = (base: string, over: Partial<OtlpConfig> = {}): OtlpConfig => ({
  url: tracesUrl(base),
  headers: { "x-api-key": SECRET },
  serviceName: "voice-agent-platform-test",
  timeoutMs: 10_000,
  ...over,
});

function sampleSpans(): Span[] {
  const traceId = newTraceId();
  const root = newSpanId();
  return [
    {
      traceId,
      spanId: root,
      name: "call",
      kind: "server",
      startMs: 1_767_225_600_000,
      endMs: 1_767_225_660_000.5,
      attributes: { "call.id": "c1", "call.replies": 2, "call.ratio": 0.25, "call.ok": true, "call.none": undefined },
      events: [{ name: "interruption", at: 1_767_225_630_000, attributes: { "voice.reply": 2 } }],
      status: { code: "error", message: "tts: ProviderError" },
    },
    {
      traceId,
      spanId: newSpanId(),
      parentSpanId: root,
      name: "turn",
      kind: "internal",
      startMs: 1_767_225_610_000,
      endMs: 1_767_225_611_000,
      attributes: {},
    },
  ];
}

describe("the exporter's configuration", () => {
  it("is off without an endpoint, and posts to {endpoint}/v1/traces with the endpoint's own path kept", () => {
    expect(otlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_HEADERS: {}, OTEL_SERVICE_NAME: "s" })).toBeNull();
    const c = otlpConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.com/otlp/",
      OTEL_EXPORTER_OTLP_HEADERS: { authorization: "Basic x" },
      OTEL_SERVICE_NAME: "svc",
    });
    expect(c).toEqual({
      url: "https://otlp.example.com/otlp/v1/traces",
      headers: { authorization: "Basic x" },
      serviceName: "svc",
      timeoutMs: 10_000,
    });
    expect(tracesUrl("http://127.0.0.1:4318")).toBe("http://127.0.0.1:4318/v1/traces");
  });

  it("reads OTEL_EXPORTER_OTLP_HEADERS as k=v,k2=v2, percent-decoded and trimmed", () => {
    expect(parseOtlpHeaders("")).toEqual({});
    expect(parseOtlpHeaders(" api-key = abc%3D%3D , Authorization=Basic%20dTpw ,")).toEqual({
      "api-key": "abc==",
      authorization: "Basic dTpw",
    });
    expect(parseOtlpHeaders("x-honeycomb-team=k=v")).toEqual({ "x-honeycomb-team": "k=v" });
  });

  it("refuses a malformed entry by its position, never echoing a value, in the worker's schema too", () => {
    for (const bad of [`justakey${SECRET}`, `=${SECRET}`, `bad name=${SECRET}`, `k=${SECRET}%0A`, `k=${SECRET}%E0%A4%A`]) {
      expect(() => parseOtlpHeaders(`ok=1,${bad}`)).toThrow(/entry 2 of OTEL_EXPORTER_OTLP_HEADERS/);
      const parsed = envSchema.shape.OTEL_EXPORTER_OTLP_HEADERS.safeParse(`ok=1,${bad}`);
      expect(parsed.success).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).not.toContain(SECRET);
    }
    expect(envSchema.shape.OTEL_EXPORTER_OTLP_HEADERS.parse(undefined)).toEqual({});
    expect(envSchema.shape.OTEL_SERVICE_NAME.parse(undefined)).toBe("voice-agent-platform");
    expect(envSchema.shape.OTEL_EXPORTER_OTLP_ENDPOINT.safeParse("not a url").success).toBe(false);
  });
});

describe("the OTLP JSON encoding", () => {
  it("makes hex ids of the right length, a call's UUID its trace id", () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newSpanId()).not.toBe(newSpanId());
    expect(traceIdOf("0196F3A2-7B4C-7D8E-9F01-23456789ABCD")).toBe("0196f3a27b4c7d8e9f0123456789abcd");
    expect(traceIdOf("not-a-uuid")).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf("00000000-0000-0000-0000-000000000000")).not.toBe("0".repeat(32));
  });

  it("writes times as nanosecond strings, past 2^53 without float rounding", () => {
    expect(unixNano(1_767_225_600_000)).toBe("1767225600000000000");
    expect(unixNano(1_767_225_600_000.5)).toBe("1767225600000500000");
    expect(unixNano(1_767_225_600_123.25)).toBe("1767225600123250000");
    expect(unixNano(Number.NaN)).toBe("0");
  });

  it("is resourceSpans → scopeSpans → spans, with typed attribute values", () => {
    const [root, turn] = sampleSpans() as [Span, Span];
    const body = encodeSpans("svc", [root, turn]);
    const rs = body.resourceSpans[0];
    expect(rs?.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "svc" } });
    const spans = rs?.scopeSpans[0]?.spans ?? [];
    expect(spans[0]).toMatchObject({
      traceId: root.traceId,
      spanId: root.spanId,
      name: "call",
      kind: 2,
      startTimeUnixNano: "1767225600000000000",
      endTimeUnixNano: "1767225660000500000",
      attributes: [
        { key: "call.id", value: { stringValue: "c1" } },
        { key: "call.replies", value: { intValue: "2" } },
        { key: "call.ratio", value: { doubleValue: 0.25 } },
        { key: "call.ok", value: { boolValue: true } },
      ],
      events: [
        { timeUnixNano: "1767225630000000000", name: "interruption", attributes: [{ key: "voice.reply", value: { intValue: "2" } }] },
      ],
      status: { code: 2, message: "tts: ProviderError" },
    });
    expect(spans[0]).not.toHaveProperty("parentSpanId");
    expect(spans[1]).toMatchObject({ parentSpanId: root.spanId, kind: 1, status: {} });
  });
});

describe("exporting spans", () => {
  it("posts the OTLP JSON to {endpoint}/v1/traces with the configured headers", async () => {
    const { base, received } = await receiver((res) => {
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const spans = sampleSpans();
    const lines: string[] = [];
    await expect(exportSpans(config(`${base}/`), spans, undefined, { log: (l) => lines.push(l) })).resolves.toBe(true);
    expect(received).toHaveLength(1);
    const [r] = received as [Received];
    expect(r.method).toBe("POST");
    expect(r.path).toBe("/v1/traces");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["x-api-key"]).toBe(SECRET);
    const body = JSON.parse(r.body);
    expect(body.resourceSpans[0].resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "voice-agent-platform-test" },
    });
    const sent = body.resourceSpans[0].scopeSpans[0].spans;
    expect(sent.map((s: { spanId: string }) => s.spanId)).toEqual(spans.map((s) => s.spanId));
    for (const s of sent) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(typeof s.startTimeUnixNano).toBe("string");
      expect(typeof s.endTimeUnixNano).toBe("string");
    }
    expect(lines).toEqual([]);
  });

  it("sends nothing for no spans", async () => {
    const calls: unknown[] = [];
    const fake = (async (...args: unknown[]) => {
      calls.push(args);
      return new Response("{}");
    }) as typeof fetch;
    await expect(exportSpans(config("http://127.0.0.1:9"), [], fake)).resolves.toBe(true);
    expect(calls).toEqual([]);
  });

  it("logs a refusal (500) without throwing, and without the headers", async () => {
    const { base, received } = await receiver((res) => {
      res.writeHead(500).end(`echoing ${SECRET}`);
    });
    const lines: string[] = [];
    await expect(exportSpans(config(base), sampleSpans(), undefined, { log: (l) => lines.push(l) })).resolves.toBe(false);
    expect(received).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      level: "warn",
      msg: "trace export failed",
      status: 500,
      spans: 2,
      url: `${base}/v1/traces`,
    });
    expect(lines.join("")).not.toContain(SECRET);
  });

  it("logs spans a 200 rejected (partialSuccess)", async () => {
    const { base } = await receiver((res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ partialSuccess: { rejectedSpans: "1", errorMessage: "bad span" } }));
    });
    const lines: string[] = [];
    await expect(exportSpans(config(base), sampleSpans(), undefined, { log: (l) => lines.push(l) })).resolves.toBe(false);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ rejectedSpans: 1, reason: "bad span" });
  });

  it("gives up on a receiver that never answers, at the timeout, without throwing", async () => {
    const { base, received } = await receiver(() => {}); // never answers
    const lines: string[] = [];
    // The receiver never answers: whatever the machine's speed, the export can only end by its timeout.
    await expect(exportSpans(config(base, { timeoutMs: 1 }), sampleSpans(), undefined, { log: (l) => lines.push(l) })).resolves.toBe(false);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ msg: "trace export failed", error: "TimeoutError" });
    expect(received.length).toBeLessThanOrEqual(1);
    expect(lines.join("")).not.toContain(SECRET);
  });

  it("stops when its caller aborts, once the request reached the receiver", async () => {
    const stop = new AbortController();
    const { base, received } = await receiver(() => {
      stop.abort(); // and never answers
    });
    const lines: string[] = [];
    await expect(exportSpans(config(base), sampleSpans(), undefined, { log: (l) => lines.push(l), signal: stop.signal })).resolves.toBe(
      false,
    );
    expect(received).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ msg: "trace export failed", error: "AbortError" });
  });

  it("survives a network error and a fetch that throws, and keeps credentials in the URL out of the log", async () => {
    const { base } = await receiver((res) => {
      res.end();
    });
    const port = new URL(base).port;
    const s = server;
    server = null;
    s?.closeAllConnections();
    await new Promise<void>((resolve) => s?.close(() => resolve()));
    const lines: string[] = [];
    const c = config(`http://user:${SECRET}@127.0.0.1:${port}/?token=${SECRET}`);
    await expect(exportSpans(c, sampleSpans(), undefined, { log: (l) => lines.push(l) })).resolves.toBe(false);
    const throwing = (() => {
      throw new TypeError("boom");
    }) as typeof fetch;
    await expect(exportSpans(c, sampleSpans(), throwing, { log: (l) => lines.push(l) })).resolves.toBe(false);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] as string)).toMatchObject({ error: "TypeError", url: `http://127.0.0.1:${port}/v1/traces` });
    expect(lines.join("")).not.toContain(SECRET);
  });
});
