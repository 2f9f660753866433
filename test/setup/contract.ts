// Every JSON response the integration suite receives from /v1 and /webhooks is validated against
// the OpenAPI document's schema for its operation and status (test/openapi.ts); a mismatch fails
// the test that made the request: the request's own fetch rejects with the problems, and the test
// fails after it even if it swallowed that rejection. The document is the one the worker serves
// (/v1/openapi.json), fetched once per test file. Tests, the harness's helpers and the SDKs they
// drive (openai) all request through the global fetch, which this wraps; paths the document does
// not describe (dashboard pages, the widget, telephony) are out of its scope.
import { afterEach, inject } from "vitest";
import { OPENAPI_PATH, servedContract } from "../openapi";

const IN_SCOPE = /^\/(v1|webhooks)\//;

const original = globalThis.fetch;
const origin = new URL(inject("stack").baseUrl).origin;

/** Mismatches seen since the current test began (reported by afterEach if the test went on). */
const mismatches: string[] = [];

async function check(method: string, url: URL, res: Response): Promise<string[]> {
  if (url.origin !== origin || !IN_SCOPE.test(url.pathname) || url.pathname === OPENAPI_PATH) return [];
  if (!/^application\/([\w.-]+\+)?json/i.test(res.headers.get("content-type") ?? "")) return [];
  const doc = await servedContract();
  const template = doc.operationFor(method, url.pathname);
  if (!template) return [];
  const text = await res.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${method} ${url.pathname} → ${res.status}: the body is not JSON although its Content-Type says so`];
  }
  return doc.checkResponse(method, template, res.status, body);
}

globalThis.fetch = async function contractFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await original(input, init);
  const request = input instanceof Request ? input : undefined;
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const url = new URL(request ? request.url : String(input));
  const problems = await check(method, url, res);
  if (problems.length) {
    const message = `response does not match the OpenAPI document:\n  ${problems.join("\n  ")}`;
    mismatches.push(message);
    throw new Error(message);
  }
  return res;
};

afterEach(() => {
  const seen = mismatches.splice(0);
  if (seen.length) throw new Error(seen.join("\n"));
});
