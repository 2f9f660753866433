// A protocol-level stand-in for Upstash QStash, so the production delivery path (the
// @upstash/qstash Client publishing, QStash calling back, the Receiver verifying) runs on one
// machine. It implements what we use: POST /v2/publish/<destination> (Bearer token,
// Upstash-Retries, Upstash-Deduplication-Id, Upstash-Failure-Callback, Upstash-Forward-*),
// delivery with `Upstash-Signature` (an HS256 JWT: iss "Upstash", sub = destination URL,
// body = base64url(SHA-256(body))), `Upstash-Message-Id` and `Upstash-Retried`, retries on
// non-2xx and network errors, and the failure callback when retries are exhausted.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { SignJWT } from "jose";

export interface QstashDelivery {
  messageId: string;
  url: string;
  retried: number;
  status: number | null;
  at: number;
}

export interface QstashStandIn {
  url: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** Every call made to a destination or failure callback, in order. */
  deliveries: QstashDelivery[];
  published: Array<{ messageId: string; destination: string; deduplicated: boolean }>;
  /** The next `count` publishes are answered 500 (QStash down), nothing published. */
  failNextPublishes(count: number): void;
  /** Resolves when no message is being delivered or waiting for a retry. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString("base64url");

export async function startQstash(
  opts: { retryDelayMs?: (retried: number) => number; signWith?: "current" | "next" } = {},
): Promise<QstashStandIn> {
  const token = `qstash_${randomBytes(16).toString("hex")}`;
  const currentSigningKey = `sig_${randomBytes(16).toString("hex")}`;
  const nextSigningKey = `sig_${randomBytes(16).toString("hex")}`;
  const delay = opts.retryDelayMs ?? ((n) => Math.min(1000, 50 * 2 ** n));
  const deliveries: QstashDelivery[] = [];
  const published: QstashStandIn["published"] = [];
  const seen = new Map<string, string>(); // deduplication id -> message id
  let inFlight = 0;
  let publishFaults = 0;
  let waiters: Array<() => void> = [];
  const settle = () => {
    if (inFlight === 0) {
      for (const w of waiters) w();
      waiters = [];
    }
  };

  const sign = async (url: string, body: string) =>
    new SignJWT({ body: b64url(createHash("sha256").update(body).digest()) })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("Upstash")
      .setSubject(url)
      .setIssuedAt()
      .setNotBefore(Math.floor(Date.now() / 1000))
      .setExpirationTime("5m")
      .setJti(`jwt_${randomBytes(8).toString("hex")}`)
      .sign(new TextEncoder().encode(opts.signWith === "next" ? nextSigningKey : currentSigningKey));

  const call = async (messageId: string, url: string, body: string, headers: Record<string, string>, retried: number) => {
    let status: number | null = null;
    let responseBody = "";
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          ...headers,
          "upstash-signature": await sign(url, body),
          "upstash-message-id": messageId,
          "upstash-retried": String(retried),
        },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      responseBody = await res.text();
    } catch {
      status = null;
    }
    deliveries.push({ messageId, url, retried, status, at: Date.now() });
    return { status, responseBody };
  };

  const run = async (
    messageId: string,
    destination: string,
    body: string,
    headers: Record<string, string>,
    retries: number,
    failureCallback?: string,
  ) => {
    inFlight++;
    try {
      for (let retried = 0; ; retried++) {
        const { status, responseBody } = await call(messageId, destination, body, headers, retried);
        if (status !== null && status >= 200 && status < 300) return;
        if (retried >= retries) {
          if (failureCallback) {
            const payload = JSON.stringify({
              status,
              header: {},
              body: Buffer.from(responseBody).toString("base64"),
              retried,
              maxRetries: retries,
              sourceMessageId: messageId,
              url: destination,
              method: "POST",
              sourceHeader: headers,
              sourceBody: Buffer.from(body).toString("base64"),
              topicName: "",
              endpointName: "",
              createdAt: Date.now(),
            });
            await call(`${messageId}_cb`, failureCallback, payload, { "content-type": "application/json" }, 0);
          }
          return;
        }
        await new Promise((r) => setTimeout(r, delay(retried)));
      }
    } finally {
      inFlight--;
      settle();
    }
  };

  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const match = /^\/v2\/publish\/(.+)$/.exec(req.url ?? "");
    if (req.method !== "POST" || !match?.[1]) return send(404, { error: "only POST /v2/publish/<url> is implemented" });
    const destination = decodeURIComponent(match[1]);
    if (publishFaults > 0) {
      publishFaults--;
      return send(500, { error: "internal server error" });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const h = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
    const dedup = h("upstash-deduplication-id");
    if (dedup && seen.has(dedup)) {
      const messageId = seen.get(dedup) as string;
      published.push({ messageId, destination, deduplicated: true });
      return send(201, { messageId, deduplicated: true });
    }
    const messageId = `msg_${randomBytes(12).toString("hex")}`;
    if (dedup) seen.set(dedup, messageId);
    published.push({ messageId, destination, deduplicated: false });
    const forward: Record<string, string> = { "content-type": h("content-type") ?? "application/octet-stream" };
    for (const [k, v] of Object.entries(req.headers)) {
      if (k.startsWith("upstash-forward-") && typeof v === "string") forward[k.slice("upstash-forward-".length)] = v;
    }
    const retries = Number(h("upstash-retries") ?? "3");
    send(201, { messageId });
    void run(messageId, destination, body, forward, retries, h("upstash-failure-callback"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("qstash stand-in did not bind");
  return {
    url: `http://127.0.0.1:${addr.port}`,
    token,
    currentSigningKey,
    nextSigningKey,
    deliveries,
    published,
    failNextPublishes: (count) => {
      publishFaults = count;
    },
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
