// Counts what a worker asks of Postgres at a forwarder in front of the stack's two doors (the
// SQL-over-HTTP endpoint and the WebSocket proxy): start a worker with `vars` to count its trips.
import { createServer, type Server } from "node:http";
import { connect, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { freePort } from "../../dev/stack";

/** Counts what a worker asks of Postgres: SQL-over-HTTP requests, and WebSocket connections. */
export class PostgresCounter {
  sqlRequests = 0;
  connections = 0;
  private http?: Server;
  private tcp?: TcpServer;
  vars: Record<string, string> = {};

  async start(target: { httpEndpoint: string; wsProxy: string }) {
    this.http = createServer(async (req, res) => {
      this.sqlRequests++;
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host") headers.set(k, v);
      const upstream = await fetch(target.httpEndpoint, { method: req.method, headers, body: Buffer.concat(chunks) });
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    const [wsHost, wsPort] = target.wsProxy.split(":");
    this.tcp = createTcpServer((socket) => {
      this.connections++;
      const upstream = connect(Number(wsPort), wsHost);
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on("error", close);
      upstream.on("error", close);
    });
    const httpPort = await freePort();
    const tcpPort = await freePort();
    await new Promise<void>((r) => this.http?.listen(httpPort, "127.0.0.1", r));
    await new Promise<void>((r) => this.tcp?.listen(tcpPort, "127.0.0.1", r));
    this.vars = { DATABASE_HTTP_ENDPOINT: `http://127.0.0.1:${httpPort}/sql`, DATABASE_WS_PROXY: `127.0.0.1:${tcpPort}` };
  }

  reset() {
    this.sqlRequests = 0;
    this.connections = 0;
  }

  async stop() {
    this.http?.closeAllConnections();
    await new Promise((r) => this.http?.close(r));
    await new Promise((r) => this.tcp?.close(r));
  }
}
