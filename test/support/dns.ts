// A DNS-over-HTTPS stand-in speaking the JSON API of cloudflare-dns.com / dns.google, so the
// worker's resolver runs unchanged against names we control. The table is read at each query,
// so a test may change an answer (a name that turns private after it was saved); `unreachable`
// drops every connection unanswered, as a resolver the worker cannot reach.
import { createServer, type Server } from "node:http";

export async function startDoh(
  table: Record<string, string[]>,
): Promise<{ url: string; queries: string[]; unreachable: boolean; stop(): Promise<void> }> {
  const queries: string[] = [];
  const state = { unreachable: false };
  const server: Server = createServer((req, res) => {
    if (state.unreachable) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? "/", "http://x");
    const name = url.searchParams.get("name") ?? "";
    const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
    queries.push(`${name}/${type === 1 ? "A" : "AAAA"}`);
    const answers = (table[name] ?? []).filter((a) => (type === 28) === a.includes(":")).map((data) => ({ name, type, TTL: 60, data }));
    res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify({ Status: table[name] ? 0 : 3, Answer: answers }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("doh did not bind");
  return {
    url: `http://127.0.0.1:${addr.port}/dns-query`,
    queries,
    get unreachable() {
      return state.unreachable;
    },
    set unreachable(value: boolean) {
      state.unreachable = value;
    },
    stop: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
