// Issue 29 item 6: a body that is too large costs only its sender. Several 40 MiB chunked bodies
// (no Content-Length, no valid API key) go to POST /v1/agents while another workspace creates
// agents: every create answers 201, and every big body our 413 error body. Before the fix the
// edge guard read each big body without giving the event loop a turn (seconds for 4 × 40 MiB),
// the runtime meanwhile closed kept-alive connections as idle, and wrangler's proxy answered the
// requests it had sent on them `503 Your worker restarted mid-request` (text/plain); big bodies
// past 32 MiB were cut, so their senders got that 503 or a reset instead of the 413
// (src/lib/body.ts, docs/errors.md).
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { baseUrl, createWorkspace, expectError } from "../support/harness";

const personaId = "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77";
const BIG = 40 * 1024 * 1024;
const PIECE = new Uint8Array(64 * 1024).fill(0x61);

interface Outcome {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/**
 * A POST on a connection of its own. `chunked`: `total` bytes sent as Transfer-Encoding: chunked,
 * at the pace the socket takes them; otherwise `body` with its Content-Length. A connection error
 * is an outcome too (status 0), so the assertion can name it.
 */
function post(path: string, headers: Record<string, string>, body: { chunked: number } | { json: unknown }): Promise<Outcome> {
  const url = new URL(baseUrl() + path);
  const bytes = "json" in body ? Buffer.from(JSON.stringify(body.json)) : undefined;
  const framing: Record<string, string> = bytes ? { "content-length": String(bytes.byteLength) } : { "transfer-encoding": "chunked" };
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", ...headers, ...framing },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, String(v)])),
          }),
        );
        res.on("error", (err) => resolve({ status: 0, text: `response: ${err.message}`, headers: {} }));
      },
    );
    req.on("error", (err) => resolve({ status: 0, text: `request: ${err.message}`, headers: {} }));
    if (bytes) {
      req.end(bytes);
      return;
    }
    const total = (body as { chunked: number }).chunked;
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += PIECE.byteLength;
        if (!req.write(PIECE)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

const shown = (o: Outcome) => `${o.status} ${o.headers["content-type"] ?? ""} ${o.text.slice(0, 100)}`;

describe("item 6: oversized anonymous uploads cost only their senders", () => {
  it("4 × 40 MiB chunked bodies without a valid key, with 17 concurrent creates of another workspace, 3 times: every create 201, every big body our 413", async () => {
    const ws = await createWorkspace("bystander");
    const auth = { authorization: `Bearer ${ws.apiKey}` };
    for (let round = 0; round < 3; round++) {
      // No credential, and a credential that is no key: both are refused at the edge by size.
      const credentials: Array<Record<string, string>> = [{}, {}, { authorization: "Bearer sk-live-not-a-key" }, {}];
      const bigs = credentials.map((headers) => post("/v1/agents", headers, { chunked: BIG }));
      // The creates start while the big bodies stream.
      await new Promise((r) => setTimeout(r, 300));
      const creates = Array.from({ length: 17 }, (_, i) =>
        post("/v1/agents", auth, { json: { name: `bystander ${round}.${i}`, personaId } }),
      );
      const created = await Promise.all(creates);
      const refused = await Promise.all(bigs);
      const summary = `round ${round}\ncreates:\n${created.map(shown).join("\n")}\nbig bodies:\n${refused.map(shown).join("\n")}`;
      expect(
        created.map((o) => o.status),
        summary,
      ).toEqual(created.map(() => 201));
      for (const o of refused) {
        const err = await expectError(new Response(o.text, { status: o.status, headers: o.headers }), 413, "payload_too_large");
        expect(err.message, summary).toContain("262144 bytes");
      }
    }
  }, 180_000);
});
