// Opening a provider's WebSocket from Node (Node 20 has no WebSocket client that sends headers):
// the `ws` package behind the adapters' `SocketConnector`, which in the worker is Workers' fetch
// upgrade (src/providers/socket.ts `workersConnect`). The adapters' code past the upgrade is the same.
import WebSocket from "ws";
import type { ProviderSocket, SocketConnector } from "../../src/providers/socket";

export const nodeConnect: SocketConnector = (url, headers, signal) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, "ws"), { headers });
    const abort = () => {
      ws.terminate();
      reject(signal.reason);
    };
    signal.addEventListener("abort", abort, { once: true });
    const done = () => signal.removeEventListener("abort", abort);
    ws.once("open", () => {
      done();
      resolve({ socket: ws as unknown as ProviderSocket });
    });
    ws.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        done();
        const retryAfter = res.headers["retry-after"];
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          retryAfter: typeof retryAfter === "string" ? retryAfter : null,
        });
        ws.terminate();
      });
    });
    ws.once("error", (err) => {
      done();
      reject(err);
    });
  });
