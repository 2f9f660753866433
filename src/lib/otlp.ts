// OpenTelemetry spans out, as OTLP/HTTP JSON (opentelemetry.io/docs/specs/otlp/, "JSON Protobuf
// Encoding"): `POST {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces`, an ExportTraceServiceRequest of
// resourceSpans → scopeSpans → spans, with lowerCamelCase keys, lowercase hex ids, 64-bit integers
// (times, intValue) as decimal strings and enums as integers. Small on purpose and built on `fetch`
// alone, so it runs in the worker and in a call's Durable Object (docs/calls.md, "Tracing"). An
// export never throws into its caller: a failure is one log line, and header values (API keys) are
// never logged.

export type AttributeValue = string | number | boolean;
/** Span attributes; null and undefined values are left out. */
export type Attributes = Record<string, AttributeValue | null | undefined>;

/** OTLP's Span.SpanKind. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
export type SpanKind = keyof typeof SPAN_KIND;

export interface SpanEvent {
  name: string;
  /** Epoch milliseconds. */
  at: number;
  attributes?: Attributes;
}

export interface Span {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: SpanKind;
  /** Epoch milliseconds (fractions kept, as far as a double holds them). */
  startMs: number;
  endMs: number;
  attributes: Attributes;
  events?: SpanEvent[];
  status?: { code: "ok" | "error"; message?: string };
}

export interface OtlpConfig {
  /** Where spans are posted: the endpoint with `/v1/traces` appended. */
  url: string;
  /** Sent with every export (an API key, usually): never logged. */
  headers: Record<string, string>;
  serviceName: string;
  /** Per export, the response included (OpenTelemetry's default: 10 s). */
  timeoutMs: number;
}

export const OTLP_TIMEOUT_MS = 10_000;
export const DEFAULT_SERVICE_NAME = "voice-agent-platform";
const SCOPE = { name: "voice-agent-platform/calls", version: "1" };

/** The exporter's settings, or null when OTEL_EXPORTER_OTLP_ENDPOINT is unset (tracing off). */
export function otlpConfig(config: {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS: OtlpConfig["headers"];
  OTEL_SERVICE_NAME: string;
}): OtlpConfig | null {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return null;
  return {
    url: tracesUrl(endpoint),
    headers: config.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: config.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME,
    timeoutMs: OTLP_TIMEOUT_MS,
  };
}

/** The traces URL of a base endpoint, as the specification says: the signal's path appended to the endpoint's own. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.toString();
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * OTEL_EXPORTER_OTLP_HEADERS: `k=v,k2=v2`, each key and value percent-decoded (the W3C Baggage
 * form the specification names), spaces around them trimmed. A malformed entry throws an error that
 * names its position, never its text (the values are credentials).
 */
export function parseOtlpHeaders(spec: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const entries = spec.split(",");
  entries.forEach((entry, i) => {
    if (!entry.trim()) return;
    const eq = entry.indexOf("=");
    const where = `entry ${i + 1} of OTEL_EXPORTER_OTLP_HEADERS`;
    if (eq <= 0) throw new Error(`${where} is not key=value`);
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(entry.slice(0, eq).trim());
      value = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      throw new Error(`${where} has a bad percent-encoding`);
    }
    if (!HEADER_NAME.test(name)) throw new Error(`${where} has a name that is not an HTTP header name`);
    if (/[\r\n\0]/.test(value)) throw new Error(`${where} has a value with a line break`);
    headers[name.toLowerCase()] = value;
  });
  return headers;
}

function randomHex(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  if (b.every((x) => x === 0)) b[bytes - 1] = 1; // an id of all zeros is invalid
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** A random trace id: 16 bytes, 32 hex digits. */
export const newTraceId = (): string => randomHex(16);
/** A random span id: 8 bytes, 16 hex digits. */
export const newSpanId = (): string => randomHex(8);

/** A UUID's 128 bits as a trace id (so a call's trace is found by its id); anything else, a random one. */
export function traceIdOf(uuid: string): string {
  const hex = uuid.replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) && /[1-9a-f]/.test(hex) ? hex : newTraceId();
}

/** Epoch milliseconds as OTLP's fixed64 nanoseconds, a decimal string (past 2^53: no float arithmetic on the whole). */
export function unixNano(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "0";
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return (BigInt(whole) * 1_000_000n + BigInt(nanos)).toString();
}

type AnyValue = { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}

function anyValue(v: AttributeValue): AnyValue | null {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (Number.isSafeInteger(v)) return { intValue: String(v) };
  return Number.isFinite(v) ? { doubleValue: v } : null;
}

function keyValues(attributes: Attributes): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, v] of Object.entries(attributes)) {
    const value = v === null || v === undefined ? null : anyValue(v);
    if (value) out.push({ key, value });
  }
  return out;
}

/** The ExportTraceServiceRequest of some spans, as OTLP/HTTP JSON sends it. */
export function encodeSpans(serviceName: string, spans: readonly Span[], resource: Attributes = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ "service.name": serviceName, "telemetry.sdk.language": "js", ...resource }) },
        scopeSpans: [
          {
            scope: SCOPE,
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: SPAN_KIND[s.kind],
              startTimeUnixNano: unixNano(s.startMs),
              endTimeUnixNano: unixNano(Math.max(s.startMs, s.endMs)),
              attributes: keyValues(s.attributes),
              events: (s.events ?? []).map((e) => ({
                timeUnixNano: unixNano(e.at),
                name: e.name,
                attributes: keyValues(e.attributes ?? {}),
              })),
              status: s.status ? { code: s.status.code === "ok" ? 1 : 2, ...(s.status.message ? { message: s.status.message } : {}) } : {},
            })),
          },
        ],
      },
    ],
  };
}

export interface ExportOptions {
  /** Aborts the export from outside (the timeout applies as well). */
  signal?: AbortSignal;
  /** Where a failure is told: one JSON line (default: console.log). */
  log?: (line: string) => void;
  /** More resource attributes (service.name is the config's). */
  resource?: Attributes;
}

/**
 * Posts the spans to the collector, once (no retry: a call's trace is exported at its end, and a
 * lost trace is not worth holding the Durable Object for). True when the collector took them all.
 * Never throws; a failure (a refusal, a timeout, a network error, spans rejected) is logged with
 * the collector's address, never its headers.
 */
export async function exportSpans(
  config: OtlpConfig,
  spans: readonly Span[],
  fetcher: typeof fetch = (input, init) => fetch(input, init),
  options: ExportOptions = {},
): Promise<boolean> {
  if (spans.length === 0) return true;
  const log = options.log ?? ((line: string) => console.log(line));
  const where = safeUrl(config.url);
  const fail = (extra: Record<string, unknown>) => {
    log(JSON.stringify({ level: "warn", msg: "trace export failed", url: where, spans: spans.length, ...extra }));
    return false;
  };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException("the collector did not answer in time", "TimeoutError")), config.timeoutMs);
  const outer = options.signal;
  const onOuter = () => abort.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  else outer?.addEventListener("abort", onOuter, { once: true });
  try {
    const body = JSON.stringify(encodeSpans(config.serviceName, spans, options.resource));
    const res = await fetcher(config.url, {
      method: "POST",
      headers: { ...config.headers, "content-type": "application/json" },
      body,
      signal: abort.signal,
    });
    const text = await res.text();
    if (!res.ok) return fail({ status: res.status });
    const rejected = rejectedSpans(text);
    if (rejected) return fail({ status: res.status, rejectedSpans: rejected.count, reason: rejected.message });
    return true;
  } catch (err) {
    const error = abort.signal.aborted && !outer?.aborted ? "TimeoutError" : err instanceof Error ? err.name : "Error";
    return fail({ error });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuter);
  }
}

/** A 200 may still refuse some spans: ExportTraceServiceResponse.partialSuccess. */
function rejectedSpans(body: string): { count: number; message?: string } | null {
  try {
    const partial = (JSON.parse(body) as { partialSuccess?: { rejectedSpans?: string | number; errorMessage?: string } }).partialSuccess;
    const count = Number(partial?.rejectedSpans ?? 0);
    return count > 0 ? { count, message: partial?.errorMessage?.slice(0, 200) } : null;
  } catch {
    return null; // an empty or non-JSON body: accepted
  }
}

/** The collector's address for a log line: no credentials in the URL, no query string. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
