// How every provider adapter calls out: a timeout per attempt, retries on 429 and 5xx with
// exponential backoff (honouring Retry-After), and failures turned into ProviderError, whose
// message never carries the request's headers (where provider keys live).
import { ApiError } from "../lib/errors";

export type ProviderFailure = "timeout" | "rate_limited" | "upstream" | "bad_response" | "rejected";

export class ProviderError extends Error {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

export interface CallOptions {
  timeoutMs: number;
  /** Retries after the first attempt, on 429, 5xx, timeouts and network errors. */
  retries: number;
  /** Base of the exponential backoff; tests shorten it. */
  backoffMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POSTs (or GETs) to a provider; returns the 2xx response, or throws ProviderError. */
export async function providerFetch(provider: string, url: string, init: RequestInit, opts: CallOptions): Promise<Response> {
  const backoff = opts.backoffMs ?? 250;
  let last: ProviderError | undefined;
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    if (attempt > 0) {
      const hinted = last?.retryAfterSeconds ? last.retryAfterSeconds * 1000 : 0;
      await sleep(Math.min(5000, Math.max(hinted, backoff * 2 ** (attempt - 1))));
    }
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs) });
    } catch (err) {
      const e = err as Error;
      last =
        e.name === "TimeoutError"
          ? new ProviderError("timeout", `${provider} did not answer within ${opts.timeoutMs} ms`)
          : new ProviderError("upstream", `${provider} could not be reached`);
      continue;
    }
    if (res.ok) return res;
    const retryAfter = Number(res.headers.get("retry-after")) || null;
    const detail = await res.text().then(
      (t) => t.slice(0, 300),
      () => "",
    );
    if (res.status === 429) {
      last = new ProviderError("rate_limited", `${provider} is rate limiting requests`, 429, retryAfter);
      continue;
    }
    if (res.status >= 500) {
      last = new ProviderError("upstream", `${provider} answered ${res.status}`, res.status);
      continue;
    }
    // 4xx other than 429: our request was refused; retrying will not help.
    throw new ProviderError("rejected", `${provider} refused the request (${res.status}): ${safeDetail(detail)}`, res.status);
  }
  throw last ?? new ProviderError("upstream", `${provider} failed`);
}

/** A provider's error text, with anything that looks like a credential removed. */
function safeDetail(text: string): string {
  let message = text;
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: unknown };
    message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message ?? JSON.stringify(body.detail ?? body));
  } catch {
    // not JSON: keep the text
  }
  return message.replace(/\b(sk|pk|rk|xi|key|Bearer)[-_ ]?[A-Za-z0-9_-]{8,}/gi, "[redacted]").slice(0, 200);
}

export async function readJson<T>(provider: string, res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError("bad_response", `${provider} answered with a body that is not JSON`);
  }
}

/** ProviderError → our one error body (never the provider's key, never its raw body). */
export function toApiError(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  switch (err.failure) {
    case "timeout":
      return new ApiError("provider_timeout", `${err.message}. Nothing was charged; retry later.`);
    case "rate_limited":
      return new ApiError("provider_rate_limited", `${err.message}. Nothing was charged.`, {
        headers: { "Retry-After": String(err.retryAfterSeconds ?? 1) },
      });
    case "rejected":
      return new ApiError(err.status === 404 ? "validation_failed" : "provider_error", `${err.message}. Nothing was charged.`);
    default:
      return new ApiError("provider_error", `${err.message}. Nothing was charged; retry later.`);
  }
}
