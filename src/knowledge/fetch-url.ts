// Importing a URL into a knowledge base (docs/knowledge.md, "Documents"): fetched once, under the
// webhooks' SSRF rules (src/webhooks/ssrf.ts: https on 443/8443, public addresses only, checked
// after DNS), every redirect checked the same way before it is followed (at most five), within a
// time limit and the document size limit. Whatever goes wrong is a 400 url_fetch_failed saying
// what, before anything is stored.
import type { AppConfig } from "../env";
import { byteSize } from "../lib/bytes";
import { ApiError } from "../lib/errors";
import { readBytesCapped } from "../lib/response-body";
import { checkUrlResolved, dohResolver } from "../webhooks/ssrf";

const MAX_REDIRECTS = 5;
const USER_AGENT = "Service-Knowledge/1.0";

const failed = (url: string, why: string) =>
  new ApiError("url_fetch_failed", `Could not import ${url.slice(0, 300)}: ${why}. Nothing was stored.`);

export interface FetchedDocument {
  bytes: Uint8Array;
  contentType: string | null;
  /** Where the document was found (after redirects). */
  url: string;
}

const tooLarge = (url: string, cap: number) =>
  new ApiError(
    "payload_too_large",
    `The document at ${url.slice(0, 300)} is larger than ${byteSize(cap)}, the most a document may be. Nothing was stored.`,
  );

async function readBounded(res: Response, cap: number, url: string): Promise<Uint8Array> {
  const { bytes, over } = await readBytesCapped(res, cap);
  if (over) throw tooLarge(url, cap);
  return bytes;
}

export async function fetchDocument(
  config: Pick<AppConfig, "WEBHOOKS_ALLOW_PRIVATE_URLS" | "DNS_RESOLVER_URL" | "KNOWLEDGE_MAX_FILE_BYTES" | "KNOWLEDGE_URL_TIMEOUT_MS">,
  url: string,
): Promise<FetchedDocument> {
  const resolver = dohResolver(config.DNS_RESOLVER_URL);
  const limitMs = config.KNOWLEDGE_URL_TIMEOUT_MS;
  const signal = AbortSignal.timeout(limitMs);
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const verdict = await checkUrlResolved(current, config.WEBHOOKS_ALLOW_PRIVATE_URLS, resolver);
    if (!verdict.ok)
      throw failed(url, hop === 0 ? `the URL ${verdict.reason}` : `it redirects to ${current.slice(0, 300)}, which ${verdict.reason}`);
    let res: Response;
    try {
      res = await fetch(verdict.url.toString(), {
        headers: { "user-agent": USER_AGENT, accept: "text/html, text/markdown, text/plain, application/pdf;q=0.9, */*;q=0.1" },
        redirect: "manual",
        signal,
      });
    } catch (err) {
      const e = err as Error;
      throw failed(
        url,
        e.name === "TimeoutError" ? `it did not answer within ${limitMs / 1000} s` : `it could not be reached (${e.message})`,
      );
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
      await res.body?.cancel().catch(() => undefined);
      current = new URL(res.headers.get("location") as string, verdict.url).toString();
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw failed(url, `it answered HTTP ${res.status}`);
    }
    try {
      return {
        bytes: await readBounded(res, config.KNOWLEDGE_MAX_FILE_BYTES, url),
        contentType: res.headers.get("content-type"),
        url: current,
      };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const e = err as Error;
      throw failed(url, e.name === "TimeoutError" ? `it did not finish within ${limitMs / 1000} s` : `the answer broke off (${e.message})`);
    }
  }
  throw failed(url, `it redirects more than ${MAX_REDIRECTS} times`);
}
