// The request path every resource method takes: URL and headers, a timeout per attempt,
// retries with exponential backoff and jitter (honouring Retry-After) on 429, 5xx and network
// failures, and non-2xx answers turned into the error classes of errors.ts. fetch only: no
// Node built-in, so it runs unchanged on Node 20+, Cloudflare Workers and browsers.
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, type ErrorBody, PlatformError, retryAfterMs } from "./errors.js";
import { OPERATIONS, type OperationId } from "./operations.js";

export const VERSION = "0.1.0";

export interface ClientOptions {
  /** An organization API key, `sk-live-…` (dashboard → API keys). */
  apiKey: string;
  /** The platform's origin, e.g. `https://api.example.com` or `http://127.0.0.1:8787` for `npm run dev`. */
  baseURL: string;
  /** Retries after the first attempt on 429, 5xx and network failures. Default 2. */
  maxRetries?: number;
  /** Milliseconds per attempt before APITimeoutError. Default 60 000. */
  timeout?: number;
  /** A Retry-After longer than this (ms) is not waited for: the RateLimitError is thrown at once. Default 60 000. */
  maxRetryAfter?: number;
  /** Another fetch (a proxy-aware one, a test double). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
}

export interface RequestOptions {
  maxRetries?: number;
  timeout?: number;
  /** Aborts the request (and its retries); throws APIUserAbortError. */
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Sent as Idempotency-Key. calls.create always sends one (generated when not given). */
  idempotencyKey?: string;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface ApiRequest {
  operation: OperationId;
  pathParams?: Record<string, string>;
  query?: object;
  /** JSON body. */
  body?: unknown;
  /** Multipart body (stt). */
  form?: FormData;
  /** What a 2xx carries: JSON (default), bytes (audio), or nothing (204). */
  expect?: "json" | "bytes" | "empty";
  /**
   * Whether a network failure or timeout may be retried: true for reads, updates, deletes and
   * requests that carry an Idempotency-Key; false for other creations, where the first attempt
   * may have been done (a second agent, a second charge).
   */
  retryNetwork?: boolean;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError({ cause: signal.reason }));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError({ cause: signal?.reason }));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s … capped at 8 s, each shortened by up to 25 % at random. */
export function backoffMs(retry: number, random = Math.random): number {
  const base = Math.min(500 * 2 ** retry, 8_000);
  return Math.round(base * (1 - 0.25 * random()));
}

/** Statuses worth another attempt: rate limits and failures on the server's side. */
export const isRetryableStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** A random Idempotency-Key (Web Crypto, present on Node 20+, Workers and browsers). */
export function newIdempotencyKey(): string {
  const c = crypto;
  if (typeof c?.randomUUID === "function") return `sdk-${c.randomUUID()}`;
  const bytes = c.getRandomValues(new Uint8Array(16));
  return `sdk-${Array.from(bytes, (b: number) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class APIClient {
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly maxRetryAfter: number;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #headers: Record<string, string>;

  constructor(options: ClientOptions) {
    if (!options || typeof options.apiKey !== "string" || options.apiKey.trim() === "")
      throw new PlatformError("An apiKey is required: new VoiceAgentPlatform({ apiKey: 'sk-live-…', baseURL }).");
    if (typeof options.baseURL !== "string" || !/^https?:\/\//.test(options.baseURL))
      throw new PlatformError("A baseURL (http:// or https://) is required: new VoiceAgentPlatform({ apiKey, baseURL: 'https://…' }).");
    this.#apiKey = options.apiKey;
    this.baseURL = options.baseURL.replace(/\/+$/, "");
    this.maxRetries = options.maxRetries ?? 2;
    this.timeout = options.timeout ?? 60_000;
    this.maxRetryAfter = options.maxRetryAfter ?? 60_000;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new PlatformError("No fetch: pass options.fetch on a runtime without a global fetch.");
    // Bound: some runtimes (Workers, browsers) refuse a fetch called with another `this`.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#headers = { ...options.defaultHeaders };
  }

  /** The URL of an operation with its path parameters filled in and its query appended. */
  url(operation: OperationId, pathParams: Record<string, string> = {}, query?: object): string {
    const template: string = OPERATIONS[operation].path;
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = pathParams[name];
      if (typeof value !== "string" || value === "") throw new PlatformError(`${OPERATIONS[operation].sdk}: \`${name}\` is required.`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) search.append(k, item instanceof Date ? item.toISOString() : String(item));
    }
    const qs = search.toString();
    return `${this.baseURL}${path}${qs ? `?${qs}` : ""}`;
  }

  async request<T>(req: ApiRequest, options: RequestOptions = {}): Promise<{ data: T; response: Response }> {
    const { method } = OPERATIONS[req.operation];
    const url = this.url(req.operation, req.pathParams, req.query);
    const headers: Record<string, string> = {
      accept: req.expect === "bytes" ? "*/*" : "application/json",
      ...this.#headers,
      ...options.headers,
      authorization: `Bearer ${this.#apiKey}`,
    };
    if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
    let body: BodyInit | undefined;
    if (req.form) body = req.form;
    else if (req.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(req.body);
    }
    const maxRetries = Math.max(0, options.maxRetries ?? this.maxRetries);
    const timeout = options.timeout ?? this.timeout;
    const retryNetwork = req.retryNetwork ?? method !== "POST";

    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < maxRetries;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeout);
      const onUserAbort = () => controller.abort();
      options.signal?.addEventListener("abort", onUserAbort, { once: true });
      if (options.signal?.aborted) controller.abort();
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onUserAbort);
      };
      try {
        const response = await this.#fetch(url, { method, headers, body, signal: controller.signal });
        if (response.ok) {
          const data = await readSuccess<T>(response, req.expect ?? "json");
          return { data, response };
        }
        const text = await response.text();
        done();
        const delay = canRetry && isRetryableStatus(response.status) ? this.#retryDelay(attempt, response.headers) : null;
        if (delay === null) throw APIError.from(response.status, parseErrorBody(text), response.headers);
        await sleep(delay, options.signal);
      } catch (err) {
        done();
        if (err instanceof PlatformError) throw err;
        if (options.signal?.aborted) throw new APIUserAbortError({ cause: err });
        const failure = timedOut
          ? new APITimeoutError(timeout, { cause: err })
          : new APIConnectionError(connectionMessage(err), { cause: err });
        if (!(canRetry && retryNetwork)) throw failure;
        await sleep(backoffMs(attempt), options.signal);
      } finally {
        done();
      }
    }
  }

  /** How long to wait before the next attempt; null: do not retry (Retry-After beyond maxRetryAfter). */
  #retryDelay(attempt: number, headers: Headers): number | null {
    const hinted = retryAfterMs(headers);
    if (hinted === null) return backoffMs(attempt);
    if (hinted > this.maxRetryAfter) return null;
    return hinted;
  }
}

async function readSuccess<T>(response: Response, expect: "json" | "bytes" | "empty"): Promise<T> {
  if (expect === "empty" || response.status === 204) {
    await response.body?.cancel();
    return undefined as T;
  }
  if (expect === "bytes") return new Uint8Array(await response.arrayBuffer()) as T;
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("json")) return (await response.text()) as T;
  return (await response.json()) as T;
}

function parseErrorBody(text: string): ErrorBody | string | undefined {
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && typeof (parsed as ErrorBody).code === "string") return parsed as ErrorBody;
  } catch {
    // not JSON: a proxy's page, kept as text
  }
  return text;
}

function connectionMessage(err: unknown): string {
  const cause = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
  return `Could not reach the API (${cause}).`;
}
