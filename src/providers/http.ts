// How every provider adapter calls out: a timeout per attempt, retries on 429 and 5xx with
// exponential backoff (honouring Retry-After), and failures turned into ProviderError, whose
// message never carries the request's headers (where provider keys live).
import { ApiError } from "../lib/errors";

export type ProviderFailure = "timeout" | "rate_limited" | "upstream" | "bad_response" | "rejected" | "canceled";

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

/** The error of a request that we cancelled ourselves (a barge-in, a discarded speculation): never retried. */
export const canceled = (provider: string) => new ProviderError("canceled", `the request to ${provider} was cancelled`);

/**
 * POSTs (or GETs) to a provider; returns the 2xx response, or throws ProviderError. `init.signal`
 * cancels it (before or after the answer started, body included): no retry follows a cancel.
 */
export async function providerFetch(provider: string, url: string, init: RequestInit, opts: CallOptions): Promise<Response> {
  const backoff = opts.backoffMs ?? 250;
  const cancel = init.signal ?? undefined;
  let last: ProviderError | undefined;
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    if (cancel?.aborted) throw canceled(provider);
    if (attempt > 0) {
      const hinted = last?.retryAfterSeconds ? last.retryAfterSeconds * 1000 : 0;
      await sleep(Math.min(5000, Math.max(hinted, backoff * 2 ** (attempt - 1))));
      if (cancel?.aborted) throw canceled(provider);
    }
    let res: Response;
    try {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      res = await fetch(url, { ...init, signal: cancel ? AbortSignal.any([timeout, cancel]) : timeout });
    } catch (err) {
      if (cancel?.aborted) throw canceled(provider);
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
export function safeDetail(text: string): string {
  let message = text;
  try {
    const body = JSON.parse(text) as {
      error?: { message?: string } | string;
      message?: string;
      detail?: unknown;
      err_msg?: string; // Deepgram's
    };
    message =
      typeof body.error === "string"
        ? body.error
        : (body.error?.message ?? body.message ?? body.err_msg ?? JSON.stringify(body.detail ?? body));
  } catch {
    // not JSON: keep the text
  }
  return message.replace(/\b(sk|pk|rk|xi|key|Bearer)[-_ ]?[A-Za-z0-9_-]{8,}/gi, "[redacted]").slice(0, 200);
}

/**
 * The chunks of a streamed answer's body as they arrive. A read that fails (the connection broke,
 * or the timeout or `signal` aborted it) is a ProviderError: `canceled` when `signal` did it.
 */
export async function* readChunks(provider: string, res: Response, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  if (!res.body) throw new ProviderError("bad_response", `${provider} answered without a body`);
  const reader = res.body.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        if (signal?.aborted) throw canceled(provider);
        throw new ProviderError("upstream", `${provider} broke off its answer`);
      }
      if (next.done) return;
      if (next.value.length > 0) yield next.value;
    }
  } finally {
    // Leaving early (a cancel, or the consumer stopped) releases the connection.
    reader.cancel().catch(() => undefined);
  }
}

/** The `data:` payloads of a server-sent event stream (OpenAI's streamed completions), one per event. */
export async function* readSse(provider: string, res: Response, signal?: AbortSignal): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  const lines = function* (final: boolean) {
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      yield buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
    }
    if (final && buffer) {
      yield buffer;
      buffer = "";
    }
  };
  const events = function* (final: boolean) {
    for (const line of lines(final)) {
      if (line === "") {
        if (data.length > 0) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      // comments (": …"), event:, id: and retry: lines carry nothing we use
    }
    if (final && data.length > 0) {
      yield data.join("\n");
      data = [];
    }
  };
  for await (const chunk of readChunks(provider, res, signal)) {
    buffer += decoder.decode(chunk, { stream: true });
    yield* events(false);
  }
  buffer += decoder.decode();
  yield* events(true);
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
