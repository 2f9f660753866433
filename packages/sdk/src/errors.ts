// Everything the SDK throws. One base for HTTP answers (APIError: status, code, message,
// requestId, headers), a subclass per family so `instanceof` picks the handling, and separate
// classes for requests that got no answer (APIConnectionError, APITimeoutError). The server's
// error body is {statusCode, error, code, message, requestId, issues?} (docs/errors.md).
import type { components } from "./generated/openapi.js";

/** The server's stable machine codes (docs/errors.md), from the OpenAPI document. */
export type ErrorCode = components["schemas"]["Error"]["code"];
export type ErrorBody = components["schemas"]["Error"];
export type ValidationIssue = NonNullable<ErrorBody["issues"]>[number];

/** Root of every error this SDK throws. */
export class PlatformError extends Error {
  override name = "PlatformError";
}

/** The API answered with a non-2xx status. */
export class APIError extends PlatformError {
  override name = "APIError";
  /** The HTTP status. */
  readonly status: number;
  /** The stable machine code (`not_found`, `rate_limited`…); `unknown_error` when the body was not ours. */
  readonly code: ErrorCode | "unknown_error";
  /** The request id (X-Request-Id): quote it to support. */
  readonly requestId: string | null;
  /** The response headers. */
  readonly headers: Headers;
  /** Field-level problems (validation_failed only). */
  readonly issues: ValidationIssue[] | undefined;
  /** The parsed error body, or the raw text when it was not JSON. */
  readonly body: ErrorBody | string | undefined;

  constructor(status: number, body: ErrorBody | string | undefined, headers: Headers, message?: string) {
    const parsed = typeof body === "object" && body !== null ? body : undefined;
    super(message ?? parsed?.message ?? (typeof body === "string" && body ? body.slice(0, 500) : `HTTP ${status}`));
    this.status = status;
    this.code = parsed?.code ?? "unknown_error";
    this.requestId = parsed?.requestId || headers.get("x-request-id");
    this.headers = headers;
    this.issues = parsed?.issues;
    this.body = body;
  }

  /** The subclass for a response's status. */
  static from(status: number, body: ErrorBody | string | undefined, headers: Headers): APIError {
    const Family = familyOf(status);
    return new Family(status, body, headers);
  }
}

/** 400, 413, 415, 422: the request is refused as sent (bad field, bad JSON, too large, wrong type); fix it, do not retry. */
export class ValidationError extends APIError {
  override name = "ValidationError";
}
/** 401: missing, unknown or revoked API key. */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
/** 402: the workspace's credits cannot cover the request; nothing was charged. */
export class InsufficientCreditsError extends APIError {
  override name = "InsufficientCreditsError";
}
/** 403: authenticated, but not allowed. */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
/** 404: no such resource in this workspace. */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
/** 409: conflicts with the current state (taken, read-only, already revoked, idempotency key reused). */
export class ConflictError extends APIError {
  override name = "ConflictError";
}
/** 429: rate limited (by us, or by the model provider behind us). */
export class RateLimitError extends APIError {
  override name = "RateLimitError";
  /** Seconds to wait, from Retry-After; null when the response did not say. */
  readonly retryAfter: number | null;
  constructor(status: number, body: ErrorBody | string | undefined, headers: Headers, message?: string) {
    super(status, body, headers, message);
    const ms = retryAfterMs(headers);
    this.retryAfter = ms === null ? null : ms / 1000;
  }
}
/** 5xx: our side, or a provider behind us, failed. Retried automatically. */
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

/** No HTTP answer: DNS, refused connection, reset, CORS, offline. */
export class APIConnectionError extends PlatformError {
  override name = "APIConnectionError";
  constructor(message = "Could not reach the API.", options?: { cause?: unknown }) {
    super(message, options);
  }
}
/** No answer within the `timeout` (per attempt). */
export class APITimeoutError extends APIConnectionError {
  override name = "APITimeoutError";
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(`The API did not answer within ${timeoutMs} ms.`, options);
  }
}
/** The caller aborted the request through its own AbortSignal; never retried. */
export class APIUserAbortError extends PlatformError {
  override name = "APIUserAbortError";
  constructor(options?: { cause?: unknown }) {
    super("The request was aborted.", options);
  }
}
/** constructEvent refused a webhook delivery (bad, stale or missing signature, wrong secret, not JSON). */
export class WebhookVerificationError extends PlatformError {
  override name = "WebhookVerificationError";
}

function familyOf(status: number): typeof APIError {
  if (status === 400 || status === 413 || status === 415 || status === 422) return ValidationError;
  if (status === 401) return AuthenticationError;
  if (status === 402) return InsufficientCreditsError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return InternalServerError;
  return APIError;
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "" && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
