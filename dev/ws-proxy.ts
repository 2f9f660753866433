// The local stand-in for Neon's WebSocket proxy. The worker's @neondatabase/serverless
// Pool speaks the Postgres wire protocol over a WebSocket; Neon terminates that socket
// in front of its Postgres. Here we terminate it and pipe the bytes to one fixed TCP
// target (PGlite's socket server or a real PostgreSQL). The `address` query parameter
// the driver sends is ignored on purpose: this proxy reaches one database and nothing else.
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

export interface WsProxy {
  port: number;
  stop(): Promise<void>;
}

export async function startWsProxy(target: { host: string; port: number }, port = 0): Promise<WsProxy> {
  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket upgrade required\n");
  });
  const wss = new WebSocketServer({ server: http });
  const sockets = new Set<WebSocket>();

  wss.on("connection", (ws) => {
    sockets.add(ws);
    const tcp = connect(target.port, target.host);
    tcp.setNoDelay(true);
    const pending: Buffer[] = [];
    let open = false;
    tcp.on("connect", () => {
      open = true;
      for (const chunk of pending) tcp.write(chunk);
      pending.length = 0;
    });
    ws.on("message", (data: Buffer) => {
      // Terminate ('X', length 4) on its own: a real PostgreSQL closes the connection, and so
      // does Neon's proxy; pglite-socket does not, which would leak one connection per request.
      if (data.length === 5 && data[0] === 0x58 && data.readInt32BE(1) === 4) {
        if (open) tcp.end(data);
        else tcp.destroy();
        ws.close();
        return;
      }
      if (open) tcp.write(data);
      else pending.push(data);
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

  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  const address = http.address();
  if (!address || typeof address === "string") throw new Error("ws proxy did not bind");
  return {
    port: address.port,
    async stop() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
