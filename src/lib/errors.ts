// The one error model. Every non-2xx response of the service has the body
// {statusCode, error, code, message, requestId}; this table is the only place that maps a
// code to its status, and docs/errors.md is rendered from it (a test keeps them equal).
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export const ERRORS = {
  bad_request: { status: 400, when: "The request is malformed (bad cursor, bad query, bad header)." },
  invalid_json: { status: 400, when: "The body is not valid JSON." },
  validation_failed: { status: 400, when: "A field is missing, of the wrong type, out of range, or unknown." },
  caller_id_not_verified: {
    status: 400,
    when: "The caller id is neither a number of the platform's Twilio account nor a verified caller id there; have it bought or verified, then add it again.",
  },
  stream_not_supported: { status: 400, when: "`stream: true` was sent to chat: the API is request/response only." },
  channel_credentials_rejected: {
    status: 400,
    when: "Telegram or WhatsApp refused the channel's credentials (a wrong bot token, access token or phone number id); nothing was saved.",
  },
  url_fetch_failed: {
    status: 400,
    when: "A URL to import could not be fetched: it answered non-2xx, timed out, redirected too often or to a private address; nothing was stored.",
  },
  invalid_audio: { status: 400, when: "The uploaded file is not audio we can read (or the multipart body is malformed)." },
  unauthorized: { status: 401, when: "Missing, malformed, unknown or revoked API key, or no valid session." },
  insufficient_credits: { status: 402, when: "The workspace's usage credits cannot cover this Models call; nothing was charged." },
  forbidden: {
    status: 403,
    when: "Authenticated, but the role lacks the permission (e.g. `settings:write`), or a session names an organization the user is not a member of.",
  },
  csrf_rejected: { status: 403, when: "A cookie-authenticated state-changing request came from another site." },
  origin_not_allowed: {
    status: 403,
    when: "A widget request came from a page whose origin is not in the widget's allowed origins (or sent no Origin).",
  },
  channel_disabled: { status: 403, when: "The widget's mode does not include this channel (chat or voice)." },
  not_found: { status: 404, when: "No such resource in this workspace (another workspace's id answers the same)." },
  conflict: { status: 409, when: "The request conflicts with the current state (e.g. the key is already revoked, the email is taken)." },
  idempotency_conflict: {
    status: 409,
    when: "The Idempotency-Key was already used for a different request (another agent, number or body).",
  },
  phone_number_taken: {
    status: 409,
    when: "Another workspace has added this phone number, or it is one of the platform's shared caller ids; a number belongs to one workspace.",
  },
  channel_taken: { status: 409, when: "That Telegram bot or WhatsApp number is connected to another channel already." },
  read_only: { status: 409, when: "The resource cannot be changed (system voices are read-only)." },
  knowledge_limit_reached: {
    status: 409,
    when: 'The workspace\'s knowledge bases hold the most documents, bytes or passages allowed (docs/knowledge.md, "Limits"); delete documents first.',
  },
  session_ended: {
    status: 409,
    when: "The widget chat session has ended (closed, idle or full); send the message without a sessionId to start a new one.",
  },
  upgrade_required: { status: 426, when: "The address takes a WebSocket upgrade (a call's media or web-call socket)." },
  payload_too_large: { status: 413, when: "The body is larger than the route accepts." },
  unsupported_media_type: { status: 415, when: "The Content-Type is not one the route accepts." },
  rate_limited: { status: 429, when: "Too many requests for this key; wait `Retry-After` seconds." },
  calls_in_flight_limit: {
    status: 429,
    when: 'The workspace has as many calls in flight as it may (`maxCallsInFlight` on GET /v1/me; docs/campaigns.md, "Calls in flight"); try again when one has ended, or place it through a campaign, which waits its turn.',
    retryAfterSeconds: 5,
  },
  test_runs_limit: {
    status: 429,
    when: 'The workspace has as many agent test runs queued or running as it may (docs/agent-tests.md, "Limits"); try again when some have finished.',
    retryAfterSeconds: 10,
  },
  variables_missing: {
    status: 400,
    when: "The agent's system prompt, first message or voicemail message names a `{{variable}}` the call (or the campaign's row) does not give; `issues` names each.",
  },
  provider_rate_limited: {
    status: 429,
    when: "The model provider is rate limiting us after our retries; wait `Retry-After` seconds. Not charged.",
  },
  internal_error: { status: 500, when: "An unexpected failure on our side; the request id identifies it in our logs." },
  misconfigured: { status: 500, when: "The deployment's configuration is invalid (names the variables, never their values)." },
  provider_error: { status: 502, when: "The model provider failed or answered something we cannot read. Not charged." },
  receiver_failed: { status: 502, when: "The receiver answered non-2xx or could not be reached; QStash retries." },
  channel_provider_error: {
    status: 502,
    when: "Telegram or WhatsApp failed or could not be reached while the channel was being set up or checked; retry.",
  },
  telephony_error: {
    status: 502,
    when: "Twilio failed or could not be reached while checking a caller id (nothing was dialled) or canceling a ringing call (it was not canceled); retry.",
  },
  provider_not_configured: {
    status: 503,
    when: "The voice's (or model's) provider is not configured on this deployment; `GET /v1/voices` marks such voices `available: false`. Not charged.",
  },
  telephony_unavailable: {
    status: 503,
    when: "Phone calls are not configured on this deployment (TWILIO_ACCOUNT_SID / TWILIO_AUTH_TOKEN); web calls still work.",
  },
  cache_unavailable: {
    status: 503,
    when: "The API key is revoked in the database, but the key cache (Redis) could not be told; retry the revocation until it succeeds (after `Retry-After` seconds).",
    retryAfterSeconds: 2,
  },
  service_unavailable: {
    status: 503,
    when: "A dependency (the database, the queue, object storage) is unreachable; retry with backoff, no sooner than `Retry-After` seconds.",
    retryAfterSeconds: 2,
  },
  provider_timeout: { status: 504, when: "The model provider did not answer in time. Not charged." },
} as const satisfies Record<string, { status: ContentfulStatusCode; when: string; retryAfterSeconds?: number }>;

export type ErrorCode = keyof typeof ERRORS;

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  426: "Upgrade Required",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export const reasonPhrase = (status: number): string => REASONS[status] ?? "Error";

export interface ErrorBody {
  statusCode: number;
  error: string;
  code: ErrorCode;
  message: string;
  requestId: string;
  /** Field-level problems, on validation_failed only. */
  issues?: Array<{ path: string; message: string }>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ContentfulStatusCode;
  readonly issues?: ErrorBody["issues"];
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { issues?: ErrorBody["issues"]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: extra.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = ERRORS[code].status;
    this.issues = extra.issues;
    this.headers = extra.headers;
  }
}

/** `400 validation_failed` for a schema's issues: `Invalid <target>: <first path>: <message>`, every issue listed. */
export function invalidInput(target: string, zodIssues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): ApiError {
  const issues = zodIssues.map((issue) => ({ path: issue.path.map(String).join(".") || "(root)", message: issue.message }));
  const first = issues[0];
  return new ApiError("validation_failed", `Invalid ${target}: ${first ? `${first.path}: ${first.message}` : "The request is invalid."}`, {
    issues,
  });
}

export function errorResponse(c: Context, err: ApiError): Response {
  const body: ErrorBody = {
    statusCode: err.status,
    error: reasonPhrase(err.status),
    code: err.code,
    message: err.message,
    requestId: (c.get("requestId") as string | undefined) ?? "",
  };
  if (err.issues) body.issues = err.issues;
  // A transient outage says when to come back (clients and the SDK honour it); one of
  // configuration (provider_not_configured, telephony_unavailable) does not pass with time.
  const entry = ERRORS[err.code];
  if ("retryAfterSeconds" in entry) c.header("Retry-After", String(entry.retryAfterSeconds));
  for (const [k, v] of Object.entries(err.headers ?? {})) c.header(k, v);
  return c.json(body, err.status);
}

const HTTP_EXCEPTION_CODES: Partial<Record<number, ErrorCode>> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/** The innermost `cause` of an error: what actually failed, without wrappers' context. */
export function rootCause(err: Error): { name: string; message: string; code?: string } {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause instanceof Error; depth++) current = current.cause;
  const e = current as Error & { code?: unknown };
  return { name: e.name, message: e.message, code: typeof e.code === "string" ? e.code : undefined };
}

/** Hono's app.onError: everything thrown ends here and leaves in the one body. */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException) {
    const message = err.message || reasonPhrase(err.status);
    const code = /malformed json/i.test(message) ? "invalid_json" : (HTTP_EXCEPTION_CODES[err.status] ?? "internal_error");
    return errorResponse(c, new ApiError(code, code === "invalid_json" ? "The request body is not valid JSON." : message));
  }
  // Unknown failure: log its root cause with the request id, answer generically. Never the
  // wrapper's message: drizzle's "Failed query: … params: …" carries the query's parameters
  // (signing secrets, key hashes, payloads).
  const root = rootCause(err);
  console.error(
    JSON.stringify({ level: "error", requestId: c.get("requestId"), error: root.name, code: root.code, message: root.message }),
  );
  if (/connect|ECONNREFUSED|ECONNRESET|WebSocket|socket|terminat/i.test(`${root.code ?? ""} ${root.message}`)) {
    return errorResponse(c, new ApiError("service_unavailable", "A dependency is unreachable. Retry with backoff."));
  }
  return errorResponse(c, new ApiError("internal_error", "Something went wrong on our side. Quote the request id if you contact support."));
}

/** Renders the code table for docs/errors.md, so the docs cannot drift from the code. */
export function renderErrorTable(): string {
  const rows = Object.entries(ERRORS).map(([code, { status, when }]) => `| \`${code}\` | ${status} | ${reasonPhrase(status)} | ${when} |`);
  return ["| code | status | error | when |", "|---|---|---|---|", ...rows].join("\n");
}
