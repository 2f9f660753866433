// The bench's WebSocket-to-TCP proxy: dev/ws-proxy.ts plus counters (connections open now,
// the most at once, opened in total), so the strategy comparison can report how many
// database connections a strategy holds under load.
//
// Like dev/ws-proxy.ts it closes the connection after the client's Terminate message, as a
// real PostgreSQL and Neon's proxy do. That matters on PGlite: the Neon driver never closes
// its WebSocket itself (pg's Connection.end() calls `stream.write(buf, callback)` and the
// driver's Socket.write takes the second argument as the encoding, so the callback with
// `stream.end()` never runs) and pglite-socket ignores Terminate, so without this every
// closed Pool/Client would hold one of PGlite's `maxConnections` slots for good. Here the
// frontend stream is framed message by message, so Terminate is found even when it shares a
// WebSocket frame with other messages (dev/ws-proxy.ts matches a 5-byte frame).
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import type { WsProxy } from "../../dev/ws-proxy";

const PROTOCOL_3 = 196608;
const TERMINATE = 0x58; // 'X'

/** Splits the frontend byte stream into messages; says when Terminate went by. */
export class FrontendFramer {
  private buf: Buffer = Buffer.alloc(0);
  private started = false;

  /** Returns true when the chunk completes a Terminate message. */
  push(chunk: Buffer): boolean {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (!this.started) {
        // Untyped messages: SSLRequest / GSSENCRequest / CancelRequest, then StartupMessage.
        if (this.buf.length < 8) return false;
        const len = this.buf.readInt32BE(0);
        if (this.buf.length < len) return false;
        if (this.buf.readInt32BE(4) === PROTOCOL_3) this.started = true;
        this.buf = this.buf.subarray(len);
        continue;
      }
      if (this.buf.length < 5) return false;
      const type = this.buf[0];
      const len = this.buf.readInt32BE(1);
      if (this.buf.length < 1 + len) return false;
      this.buf = this.buf.subarray(1 + len);
      if (type === TERMINATE) return true;
    }
  }
}

export interface CountingWsProxy extends WsProxy {
  /** Connections open now, the most open at once since the last reset, and opened in total. */
  stats(): { open: number; peak: number; opened: number };
  resetStats(): void;
}

type Target = { host: string; port: number };

export async function startCountingWsProxy(target: Target): Promise<CountingWsProxy> {
  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required\n");
  });
  const wss = new WebSocketServer({ server: http });
  const sockets = new Set<WebSocket>();
  let peak = 0;
  let opened = 0;

  wss.on("connection", (ws) => {
    sockets.add(ws);
    opened += 1;
    peak = Math.max(peak, sockets.size);
    const tcp = connect(target.port, target.host);
    tcp.setNoDelay(true);
    const framer = new FrontendFramer();
    const pending: Buffer[] = [];
    let open = false;
    let terminated = false;
    tcp.on("connect", () => {
      open = true;
      for (const chunk of pending) tcp.write(chunk);
      pending.length = 0;
      if (terminated) tcp.end();
    });
    ws.on("message", (data: Buffer) => {
      if (terminated) return;
      if (open) tcp.write(data);
      else pending.push(data);
      if (framer.push(data)) {
        terminated = true;
        if (open) tcp.end(); // as Postgres does: Terminate ends the session and the connection
      }
    });
    tcp.on("data", (chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk);
    });
    const close = () => {
      sockets.delete(ws);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    ws.on("close", close);
    ws.on("error", close);
    tcp.on("close", close);
    tcp.on("error", close);
  });

  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  if (!address || typeof address === "string") throw new Error("ws proxy did not bind");
  return {
    port: address.port,
    stats: () => ({ open: sockets.size, peak, opened }),
    resetStats() {
      peak = sockets.size;
      opened = 0;
    },
    async stop() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
