// How a provider adapter opens an outbound WebSocket (Cartesia's speech, Deepgram's transcription).
// In the worker it is the Cloudflare Workers way: `fetch(https URL, {headers: {Upgrade: "websocket"}})`
// answers 101 with `response.webSocket`, which the adapter `accept()`s (workersConnect). Node has no
// WebSocket client that sends headers, so the tests pass their own connector (test/support/ws-connect.ts, the
// `ws` package); the adapters' code past the upgrade is the same (./workers-ai.ts opens Deepgram's
// stream through the Workers AI binding instead). `openSocket` is the one place where a refused
// upgrade, a timeout or an unreachable host becomes a ProviderError, as providerFetch maps an HTTP
// call's failures, with its retries and backoff; a connector may throw a ProviderError of its own.
import { type CallOptions, canceled, ProviderError, safeDetail } from "./http";

/** The part of a WebSocket the adapters use: the Workers WebSocket and the `ws` package's both have it. */
export interface ProviderSocket {
  send(data: string | ArrayBuffer | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: "error", listener: (event: unknown) => void): void;
}

/** An upgrade's outcome: the open socket, or the HTTP answer that refused it (a bad key: 401). */
export type Upgrade = { socket: ProviderSocket } | { status: number; body: string; retryAfter?: string | null };

/**
 * Opens a WebSocket to an `http(s)://` URL with these handshake headers (the provider's key among
 * them). Throws when the host cannot be reached (or `signal` aborts); a refusal is an answer, not a throw.
 */
export type SocketConnector = (url: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Upgrade>;

/** Cloudflare Workers: a fetch with `Upgrade: websocket` answers 101 with the socket to accept. */
export const workersConnect: SocketConnector = async (url, headers, signal) => {
  // The signal bounds the upgrade only: once the socket is ours, a later abort must not touch it.
  const upgrade = new AbortController();
  const forward = () => upgrade.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  let res: Response;
  try {
    res = await fetch(url, { headers: { ...headers, Upgrade: "websocket" }, signal: upgrade.signal });
  } finally {
    signal.removeEventListener("abort", forward);
  }
  const ws = res.webSocket;
  if (res.status !== 101 || !ws) {
    const body = await res.text().catch(() => "");
    // Deepgram may give its reason in a `dg-error` header and no body.
    return { status: res.status, body: body || (res.headers.get("dg-error") ?? ""), retryAfter: res.headers.get("retry-after") };
  }
  ws.accept();
  return { socket: ws as unknown as ProviderSocket };
};

/** The error of a refused upgrade, as providerFetch maps an HTTP error: 429 and 5xx may be retried. */
function refusal(provider: string, status: number, body: string, retryAfter?: string | null): ProviderError {
  const detail = safeDetail(body.slice(0, 1000));
  if (status === 429)
    return new ProviderError("rate_limited", `${provider} is rate limiting connections: ${detail}`, 429, Number(retryAfter) || null);
  if (status >= 500) return new ProviderError("upstream", `${provider} answered ${status}`, status);
  return new ProviderError("rejected", `${provider} refused the connection (${status}): ${detail}`, status);
}

/**
 * Opens `provider`'s socket with `connect`: each attempt bounded by `call.timeoutMs`, retried
 * (`call.retries`, exponential backoff from `call.backoffMs`) on 429, 5xx, timeouts and unreachable
 * hosts. Returns the socket, or throws a ProviderError: `rejected` for another refusal (never
 * retried), `canceled` when `signal` aborts before the socket is open.
 */
export async function openSocket(
  provider: string,
  connect: SocketConnector,
  url: string,
  headers: Record<string, string>,
  call: CallOptions,
  signal?: AbortSignal,
): Promise<ProviderSocket> {
  const backoff = call.backoffMs ?? 250;
  let last: ProviderError | undefined;
  for (let attempt = 0; attempt <= call.retries; attempt++) {
    if (signal?.aborted) throw canceled(provider);
    if (attempt > 0) {
      await new Promise((r) => setTimeout(r, Math.min(5000, backoff * 2 ** (attempt - 1))));
      if (signal?.aborted) throw canceled(provider);
    }
    const timeout = AbortSignal.timeout(call.timeoutMs);
    let answer: Upgrade;
    try {
      answer = await connect(url, headers, signal ? AbortSignal.any([timeout, signal]) : timeout);
    } catch (err) {
      if (signal?.aborted) throw canceled(provider);
      // A connector that knows the failure better (the Workers AI binding's own errors) throws its own ProviderError.
      if (!timeout.aborted && err instanceof ProviderError && err.failure === "rejected") throw err;
      last = timeout.aborted
        ? new ProviderError("timeout", `${provider} did not open the connection within ${call.timeoutMs} ms`)
        : err instanceof ProviderError
          ? err
          : new ProviderError("upstream", `${provider} could not be reached`);
      continue;
    }
    if ("socket" in answer) return answer.socket;
    last = refusal(provider, answer.status, answer.body, answer.retryAfter);
    if (last.failure === "rejected") throw last;
  }
  throw last ?? new ProviderError("upstream", `${provider} failed`);
}
