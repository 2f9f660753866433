// Deepgram's live models through the Workers AI binding (`env.AI`), as a SocketConnector for the
// Deepgram adapter (./deepgram.ts): Cloudflare serves Flux and Nova-3 as `@cf/deepgram/flux` and
// `@cf/deepgram/nova-3`, opened with `env.AI.run(model, params, { websocket: true })`, which answers
// 101 with the socket to `accept()`, as a fetch upgrade does. Past the upgrade the stream is
// Deepgram's own (audio frames, JSON TurnInfo/Results, CloseStream…), so the adapter is unchanged:
// the connector takes the listen URL it built (`/v2/listen?model=flux-general-en&…` or
// `/v1/listen?model=nova-3&…`), maps its path and model to the Workers AI model, and passes the other
// query parameters as the binding's inputs (a flat object of strings). The binding is the account's
// credential: the adapter's `Authorization` header is not used.
//
// Workers AI's Flux takes linear16 only; the call pipeline sends linear16 whatever the transport
// (Twilio's μ-law is decoded first). The binding has no local simulation: locally the provider
// sandbox's Deepgram API stands in for it (docs/calls.md, "Streaming transcription").
// Model pages: https://developers.cloudflare.com/workers-ai/models/flux (and …/nova-3).
import { ProviderError, safeDetail } from "./http";
import type { ProviderSocket, SocketConnector } from "./socket";

/** The part of the Workers AI binding (`env.AI`, workers-types' `Ai`) the connector uses. */
export interface WorkersAi {
  run(model: string, inputs: Record<string, string>, options: { websocket: true; signal?: AbortSignal }): Promise<Response>;
}

/** Deepgram's models that Workers AI serves, by the listen path and model name the adapter uses. */
const MODELS: Record<string, Record<string, string>> = {
  "/v2/listen": { "flux-general-en": "@cf/deepgram/flux" },
  "/v1/listen": { "nova-3": "@cf/deepgram/nova-3" },
};

/** Workers AI's name for a Deepgram model (`flux-general-en` → `@cf/deepgram/flux`), as it is metered and priced; undefined when it serves none. */
export const workersAiModelOf = (deepgramModel: string): string | undefined =>
  Object.values(MODELS).find((m) => m[deepgramModel])?.[deepgramModel];

/** The Deepgram model names (STREAMING_STT_MODEL) that Workers AI serves. */
export const WORKERS_AI_STT_MODELS: readonly string[] = Object.values(MODELS).flatMap((m) => Object.keys(m));

/** The Workers AI model and inputs for a Deepgram listen URL; throws a `rejected` ProviderError when it has none. */
export function workersAiRequest(url: string): { model: string; inputs: Record<string, string> } {
  const u = new URL(url);
  const path = Object.keys(MODELS).find((p) => u.pathname.endsWith(p));
  const name = u.searchParams.get("model") ?? "";
  const model = path ? MODELS[path]?.[name] : undefined;
  if (!model)
    throw new ProviderError(
      "rejected",
      `Workers AI serves no Deepgram model "${name}" (it serves ${WORKERS_AI_STT_MODELS.join(" and ")}; STREAMING_STT_MODEL)`,
    );
  const inputs: Record<string, string> = {};
  for (const [key, value] of u.searchParams) {
    if (key === "model") continue;
    // The binding takes one value per key; the adapter never repeats one.
    if (key in inputs) throw new ProviderError("rejected", `the Workers AI binding takes one value per parameter (${key} repeats)`);
    inputs[key] = value;
  }
  return { model, inputs };
}

/** Rejects with the signal's reason when it aborts. */
const abortion = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

/** A socket nobody will read (an answer that came after the upgrade was given up): closed at once. */
function discard(res: Response) {
  try {
    res.webSocket?.accept();
    res.webSocket?.close(1000, "cancelled");
  } catch {
    // already closed
  }
}

/**
 * Opens Deepgram's stream through the Workers AI binding: `ai.run(model, inputs, { websocket: true })`,
 * then `accept()`. A non-101 answer is a refusal (`{status, body}`, mapped by openSocket as an HTTP
 * refusal); an error the binding throws is an `upstream` ProviderError carrying its message (keys
 * removed). `signal` bounds the upgrade only, as with workersConnect.
 */
export function workersAiConnect(ai: WorkersAi): SocketConnector {
  return async (url, _headers, signal) => {
    const { model, inputs } = workersAiRequest(url);
    const upgrade = new AbortController();
    const forward = () => upgrade.abort(signal.reason);
    signal.addEventListener("abort", forward, { once: true });
    let res: Response;
    // A binding that throws at once is treated as one that rejects.
    const running = new Promise<Response>((resolve) => resolve(ai.run(model, inputs, { websocket: true, signal: upgrade.signal })));
    try {
      // The binding may not heed the signal: the timeout and a cancel must still end the wait.
      res = await Promise.race([running, abortion(upgrade.signal)]);
    } catch (err) {
      if (upgrade.signal.aborted) {
        running.then(discard, () => {});
        throw err;
      }
      throw new ProviderError("upstream", `Workers AI could not open ${model}: ${safeDetail(String((err as Error)?.message ?? err))}`);
    } finally {
      signal.removeEventListener("abort", forward);
    }
    const ws = res.webSocket;
    if (res.status !== 101 || !ws) {
      const body = await res.text().catch(() => "");
      return { status: res.status, body, retryAfter: res.headers.get("retry-after") };
    }
    ws.accept();
    return { socket: ws as unknown as ProviderSocket };
  };
}
