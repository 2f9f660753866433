// Requests through node:http, for what fetch cannot send: a body with any method (GET and DELETE
// too), declared or chunked. Their answers are held to the OpenAPI document as fetch's are
// (test/setup/contract.ts): a mismatch rejects the request and fails the test.
import { type Agent, request as httpRequest } from "node:http";
import { baseUrl } from "./harness";
import { checkAnswer } from "./openapi";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A request through node:http, which (unlike fetch) sends a body with any method: either with
 * its Content-Length or chunked (Transfer-Encoding: chunked, no Content-Length) in `chunkSize`
 * pieces. `agent` keeps the connection for the next request.
 */
export function send(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: Uint8Array; chunked?: boolean; agent?: Agent } = {},
): Promise<Answer> {
  const url = new URL(baseUrl() + path);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body && opts.chunked) headers["transfer-encoding"] = "chunked";
  else if (opts.body) headers["content-length"] = String(opts.body.byteLength);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: opts.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const answer = { status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") };
          const contentType = res.headers["content-type"] ?? null;
          checkAnswer(method, url, { status: answer.status, contentType, text: async () => answer.text }).then(
            (problem) => (problem ? reject(new Error(problem)) : resolve(answer)),
            reject,
          );
        });
        res.on("error", reject);
      },
    );
    // The server may answer (413) and stop reading before the whole body is sent.
    req.on("error", (err: NodeJS.ErrnoException) => (err.code === "EPIPE" || err.code === "ECONNRESET" ? undefined : reject(err)));
    if (opts.body) {
      const step = 64 * 1024;
      for (let i = 0; i < opts.body.byteLength; i += step) req.write(opts.body.subarray(i, i + step));
    }
    req.end();
  });
}
