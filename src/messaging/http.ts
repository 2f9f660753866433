// How the messaging adapters call Telegram's Bot API and WhatsApp's Cloud API: a timeout per
// attempt, retries on 429, 5xx and network errors with backoff (Retry-After / retry_after
// honoured, capped), and the provider's own error (status, code, description) kept for the
// caller, who decides. The request's URL and headers (where bot tokens and access tokens live)
// never reach an error message.
export interface MessagingCallOptions {
  timeoutMs: number;
  retries: number;
  backoffMs?: number;
}

export class MessagingApiError extends Error {
  constructor(
    readonly provider: string,
    /** HTTP status; null when the provider could not be reached or did not answer in time. */
    readonly status: number | null,
    /** The provider's error code (Telegram's error_code, Graph's error.code), when it gave one. */
    readonly code: number | null,
    readonly description: string,
  ) {
    super(`${provider}: ${description}`);
    this.name = "MessagingApiError";
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A provider's error text with anything shaped like a token removed. */
export const redact = (text: string) =>
  text
    .replace(/\b\d{5,}:[A-Za-z0-9_-]{20,}\b/g, "[redacted]")
    .replace(/\b(EAA|Bearer\s)[A-Za-z0-9_-]{10,}/g, "[redacted]")
    .slice(0, 300);

export interface ProviderAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * One call with retries. Returns the last answer whatever its status (2xx or a 4xx the caller
 * reads); throws MessagingApiError when the provider could not be reached, or kept answering
 * 429 or 5xx through every retry.
 */
export async function callProvider(
  provider: string,
  url: string,
  init: RequestInit,
  opts: MessagingCallOptions,
  retryAfterOf: (body: unknown) => number | null = () => null,
): Promise<ProviderAnswer> {
  const backoff = opts.backoffMs ?? 250;
  let last: MessagingApiError | undefined;
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs) });
    } catch (err) {
      const timeout = (err as Error).name === "TimeoutError";
      last = new MessagingApiError(provider, null, null, timeout ? `did not answer within ${opts.timeoutMs} ms` : "could not be reached");
      if (attempt < opts.retries) await sleep(backoff * 2 ** attempt);
      continue;
    }
    const type = res.headers.get("content-type") ?? "";
    const body: unknown = type.includes("json") ? await res.json().catch(() => null) : await res.arrayBuffer();
    if (res.status !== 429 && res.status < 500) return { status: res.status, body, headers: res.headers };
    const hinted = (Number(res.headers.get("retry-after")) || retryAfterOf(body) || 0) * 1000;
    last = new MessagingApiError(provider, res.status, null, res.status === 429 ? "is rate limiting requests" : `answered ${res.status}`);
    if (attempt < opts.retries) await sleep(Math.min(5000, Math.max(hinted, backoff * 2 ** attempt)));
  }
  throw last ?? new MessagingApiError(provider, null, null, "failed");
}
