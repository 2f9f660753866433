// A local webhook receiver for the tests: records every request's raw body and headers and
// answers from a script (fail k times, redirect, 410, a large body…).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = { status: number; body?: string | Buffer; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `n` requests have arrived (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  stop(): Promise<void>;
}

export async function startReceiver(answer: (n: number, req: Received) => Answer = () => ({ status: 200, body: "ok" })): Promise<Receiver> {
  const received: Received[] = [];
  let waiters: Array<{ n: number; resolve: () => void }> = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
    received.push(entry);
    const a = answer(received.length, entry);
    res.writeHead(a.status, { "content-type": "text/plain", ...a.headers }).end(a.body ?? "");
    const ready = waiters.filter((w) => received.length >= w.n);
    waiters = waiters.filter((w) => received.length < w.n);
    for (const w of ready) w.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("receiver did not bind");
  return {
    url: `http://127.0.0.1:${addr.port}/hook`,
    received,
    waitFor(n, ms = 15_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests in ${ms} ms`)), ms);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
