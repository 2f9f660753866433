// Every JSON response the integration suite receives from /v1 and /webhooks is validated against
// the OpenAPI document's schema for its operation and status (test/support/openapi.ts), and any other
// answer there (audio, text, no body) must have a status and media type the document lists. A
// mismatch fails the test that made the request: the request's own fetch rejects with the
// problems, and the test fails after it even if it swallowed that rejection. The document is the one the worker serves
// (/v1/openapi.json), fetched once per test file. Tests, the harness's helpers and the SDKs they
// drive (ours, openai) all request through the global fetch, which this wraps; test/support/http.ts's
// node:http requests are checked the same way. Held are the stack's worker and every worker a test
// starts (dev/stack.ts's startWorker, wrapped here) or puts a gateway in front of (test/support/gateway.ts);
// paths the document does not describe (dashboard pages, the widget, telephony) are out of scope.
import { afterEach, inject, vi } from "vitest";
import { checkAnswer, contractMismatches, holdToContract } from "../support/openapi";

holdToContract(inject("stack").baseUrl);

vi.mock("../../dev/stack", async (importOriginal) => {
  const stack = await importOriginal<typeof import("../../dev/stack")>();
  const { holdToContract: hold } = await import("../support/openapi");
  return {
    ...stack,
    async startWorker(...args: Parameters<typeof stack.startWorker>) {
      const worker = await stack.startWorker(...args);
      hold(worker.baseUrl);
      return worker;
    },
  };
});

const original = globalThis.fetch;

globalThis.fetch = async function contractFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await original(input, init);
  const request = input instanceof Request ? input : undefined;
  const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
  const url = new URL(request ? request.url : String(input));
  const problem = await checkAnswer(method, url, {
    status: res.status,
    contentType: res.headers.get("content-type"),
    text: () => res.clone().text(),
  });
  if (problem) throw new Error(problem);
  return res;
};

afterEach(() => {
  const seen = contractMismatches.splice(0);
  if (seen.length) throw new Error(seen.join("\n"));
});
