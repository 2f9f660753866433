// The WhatsApp sandbox must answer the platform's adapter as Meta's Cloud API does and notify as Meta
// notifies. This test plays the business's server: a small HTTP server answers the hub.challenge
// handshake and receives the notifications (X-Hub-Signature-256 verified with node:crypto over the
// raw body), and the provider sandbox transcribes the users' voice notes.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { startWhatsAppSandbox, type WhatsAppNumber, type WhatsAppSandbox } from "../../../dev/sandbox/whatsapp";
import { found } from "./wait";

const UNIT = 25; // one retry unit (a second at Meta), in ms, for these tests
const VERSION = "v26.0";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The stand-in business server

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Notification;
  at: number;
}

interface Notification {
  object: string;
  entry: Array<{
    id: string;
    changes: Array<{
      field: string;
      value: {
        messaging_product: string;
        metadata: { display_phone_number: string; phone_number_id: string };
        contacts?: Array<{ profile: { name: string }; wa_id: string }>;
        messages?: Array<Record<string, unknown> & { id: string; from: string; type: string; timestamp: string }>;
        statuses?: Array<Record<string, unknown> & { id: string; status: string; recipient_id: string }>;
      };
    }>;
  }>;
}

interface FakeServer {
  origin: string;
  received(key: string): Received[];
  /** Statuses for the next POSTs to /hook/{key} (only those whose body contains `match`, when given); then 200. */
  answer(key: string, ...answers: Array<{ status: number; match?: string }>): void;
  stop(): Promise<void>;
}

async function startFakeServer(): Promise<FakeServer> {
  const got = new Map<string, Received[]>();
  const plans = new Map<string, Array<{ status: number; match?: string }>>();
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const key = /^\/hook\/([^/]+)/.exec(url.pathname)?.[1] ?? "";
    if (req.method === "GET") {
      // Meta's verification request: echo hub.challenge when the mode and verify token match.
      const ok = url.searchParams.get("hub.mode") === "subscribe" && url.searchParams.get("hub.verify_token") === `verify-${key}`;
      const challenge = key.startsWith("wrongecho") ? "12345" : (url.searchParams.get("hub.challenge") ?? "");
      res.writeHead(ok ? 200 : 403, { "content-type": "text/plain" }).end(ok ? challenge : "forbidden");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const list = got.get(key) ?? [];
    list.push({ headers: req.headers, raw, body: JSON.parse(raw) as Notification, at: performance.now() });
    got.set(key, list);
    const plan = plans.get(key) ?? [];
    const i = plan.findIndex((p) => !p.match || raw.includes(p.match));
    res.writeHead(i >= 0 ? (plan.splice(i, 1)[0]?.status ?? 200) : 200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("fake server did not bind");
  return {
    origin: `http://127.0.0.1:${addr.port}`,
    received: (key) => got.get(key) ?? [],
    answer: (key, ...answers) => plans.set(key, [...(plans.get(key) ?? []), ...answers]),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Meta's payload validation: sha256= + hex HMAC-SHA256 of the raw body with the app secret. */
function signatureValid(headers: IncomingHttpHeaders, raw: string, appSecret: string): boolean {
  const got = Buffer.from(String(headers["x-hub-signature-256"] ?? ""));
  const want = Buffer.from(`sha256=${createHmac("sha256", appSecret).update(raw, "utf8").digest("hex")}`);
  return got.length === want.length && timingSafeEqual(got, want);
}

// ---------------------------------------------------------------------------------------------

let provider: ProviderSandbox;
let wa: WhatsAppSandbox;
let fake: FakeServer;
let keys = 0;

beforeAll(async () => {
  provider = await startProviderSandbox();
  wa = await startWhatsAppSandbox({
    provider: { url: provider.url, apiKey: provider.apiKey },
    retryUnitMs: UNIT,
    statusDelaysMs: { sent: 20, delivered: 40, read: 60, played: 80 },
  });
  fake = await startFakeServer();
});
afterAll(async () => {
  await wa?.stop();
  await fake?.stop();
  await provider?.stop();
});

/** A number whose app's webhook is /hook/{key}. */
async function hookedNumber(): Promise<{ num: WhatsAppNumber; key: string }> {
  const key = `k${++keys}`;
  const num = wa.createNumber();
  await wa.configureWebhook(num.app_id, { callback_url: `${fake.origin}/hook/${key}`, verify_token: `verify-${key}` });
  return { num, key };
}

type GraphBody = Record<string, unknown> & {
  error?: { message: string; type: string; code: number; error_subcode?: number; error_data?: { details: string }; fbtrace_id: string };
};

async function graph(
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: GraphBody }> {
  const res = await fetch(`${wa.url}/${VERSION}/${path}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as GraphBody };
}

const sendText = (num: WhatsAppNumber, to: string, body: string) =>
  graph(num.access_token, "POST", `${num.phone_number_id}/messages`, { messaging_product: "whatsapp", to, type: "text", text: { body } });

async function control(path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${wa.url}/__sandbox${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json" },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const statusesOf = (received: Received[], wamid: string) =>
  received.flatMap((r) => r.body.entry[0]?.changes[0]?.value.statuses ?? []).filter((s) => s.id === wamid);

describe("webhook configuration", () => {
  it("performs Meta's verification request and keeps the webhook only when hub.challenge comes back", async () => {
    const app = await control("/apps", { body: {} });
    expect(app.status).toBe(201);
    const appId = app.body.app_id as string;
    const ok = await control(`/apps/${appId}/webhook`, { body: { callback_url: `${fake.origin}/hook/vt`, verify_token: "verify-vt" } });
    expect(ok).toEqual({ status: 200, body: { success: true } });
    const refused = await control(`/apps/${appId}/webhook`, { body: { callback_url: `${fake.origin}/hook/vt`, verify_token: "wrong" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      "The callback URL or verify token couldn't be validated. Please verify the provided information or try again later.",
    );
    expect(refused.body.detail).toMatchObject({ status: 403, body: "forbidden" });
    const wrongEcho = await control(`/apps/${appId}/webhook`, {
      body: { callback_url: `${fake.origin}/hook/wrongecho`, verify_token: "verify-wrongecho" },
    });
    expect(wrongEcho.status).toBe(400);
    expect((await control(`/apps/${appId}`)).body.webhook).toMatchObject({ callback_url: `${fake.origin}/hook/vt`, fields: ["messages"] });
  });

  it("without a webhook, Meta has no one to notify: the notification is dropped", async () => {
    const num = wa.createNumber();
    const sent = await wa.send(num.phone_number_id, "15550001111", { text: "anyone?" });
    expect(wa.notifications(num.app_id).find((n) => n.id === sent.notification_id)?.state).toBe("dropped");
  });
});

describe("notifications of the users' messages", () => {
  it("a text arrives signed with the app secret over the raw body, in Meta's shape and escaped JSON", async () => {
    const { num, key } = await hookedNumber();
    const sent = await control(`/numbers/${num.phone_number_id}/users/+1 555 000 2222/messages`, {
      body: { text: "Café / crème?", profile_name: "Zoë" },
    });
    expect(sent.status).toBe(202);
    const r = await found(() => fake.received(key)[0]);
    expect(signatureValid(r.headers, r.raw, num.app_secret)).toBe(true);
    expect(signatureValid(r.headers, r.raw, `${num.app_secret}x`)).toBe(false);
    // Meta escapes non-ASCII and "/": a signature over a re-serialised body does not match.
    expect(r.raw).toContain("Caf\\u00e9 \\/ cr\\u00e8me?");
    expect(signatureValid(r.headers, JSON.stringify(r.body), num.app_secret)).toBe(false);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.body).toEqual({
      object: "whatsapp_business_account",
      entry: [
        {
          id: num.waba_id,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: num.display_phone_number, phone_number_id: num.phone_number_id },
                contacts: [{ profile: { name: "Zoë" }, wa_id: "15550002222" }],
                messages: [
                  {
                    from: "15550002222",
                    id: sent.body.id,
                    timestamp: expect.stringMatching(/^\d{10}$/),
                    type: "text",
                    text: { body: "Café / crème?" },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(sent.body.id).toMatch(/^wamid\.HBgL[A-Za-z0-9=]+$/);
  });

  it("stickers, locations and unsupported messages arrive as Meta sends them", async () => {
    const { num, key } = await hookedNumber();
    await wa.send(num.phone_number_id, "15550003333", { sticker: true });
    await wa.send(num.phone_number_id, "15550003333", { location: { latitude: 48.85, longitude: 2.35, name: "Paris" } });
    await wa.send(num.phone_number_id, "15550003333", { unsupported: true });
    await found(() => (fake.received(key).length === 3 ? true : undefined));
    const [sticker, location, unsupported] = fake.received(key).map((r) => r.body.entry[0]?.changes[0]?.value.messages?.[0]);
    expect(sticker).toMatchObject({ type: "sticker", sticker: { mime_type: "image/webp", animated: false, id: expect.any(String) } });
    expect(location).toMatchObject({ type: "location", location: { latitude: 48.85, longitude: 2.35, name: "Paris" } });
    expect(unsupported).toMatchObject({ type: "unsupported", errors: [{ code: 131051, title: "Message type unknown" }] });
  });

  it("a failed notification is retried with growing delays, on its own: a later one is not held back", async () => {
    const { num, key } = await hookedNumber();
    fake.answer(key, { status: 500, match: "first" }, { status: 503, match: "first" });
    const first = await wa.send(num.phone_number_id, "15550004444", { text: "first" });
    const second = await wa.send(num.phone_number_id, "15550004444", { text: "second" });
    await found(() => (fake.received(key).length === 4 ? true : undefined));
    const order = fake.received(key).map((r) => r.body.entry[0]?.changes[0]?.value.messages?.[0]?.id);
    // first attempts go out in order; the retries of the first do not hold the second back
    expect(order.slice(0, 2)).toEqual([first.id, second.id]);
    expect(order.filter((id) => id === first.id)).toHaveLength(3);
    const n = await found(() => wa.notifications(num.app_id).find((x) => x.id === first.notification_id && x.state === "delivered"));
    expect(n.attempts.map((a) => [a.status, a.retryInMs])).toEqual([
      [500, UNIT],
      [503, 2 * UNIT],
      [200, undefined],
    ]);
    const times = fake
      .received(key)
      .filter((r) => r.body.entry[0]?.changes[0]?.value.messages?.[0]?.id === first.id)
      .map((r) => r.at);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(UNIT - 5);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(2 * UNIT - 5);
  });

  it("redelivers a notification verbatim, signature included", async () => {
    const { num, key } = await hookedNumber();
    const sent = await wa.send(num.phone_number_id, "15550005555", { text: "dup" });
    await found(() => fake.received(key)[0]);
    const again = await control(`/notifications/${sent.notification_id}/redeliver`, { body: {} });
    expect(again.body).toMatchObject({ attempt: 2, redelivery: true, status: 200 });
    const [a, b] = fake.received(key);
    expect(b?.raw).toBe(a?.raw);
    expect(b?.headers["x-hub-signature-256"]).toBe(a?.headers["x-hub-signature-256"]);
    expect((await control("/notifications/ntf_999999/redeliver", { body: {} })).status).toBe(404);
  });
});

describe("the business's messages", () => {
  it("a text in the window is accepted, then sent, delivered and read are notified in order", async () => {
    const { num, key } = await hookedNumber();
    await wa.send(num.phone_number_id, "15550006666", { text: "hello" });
    const res = await sendText(num, "+1 (555) 000-6666", "Hi! How can I help?");
    expect(res.status).toBe(200);
    const id = (res.body.messages as Array<{ id: string }>)[0]?.id as string;
    expect(res.body).toEqual({
      messaging_product: "whatsapp",
      contacts: [{ input: "+1 (555) 000-6666", wa_id: "15550006666" }],
      messages: [{ id }],
    });
    await found(() => (statusesOf(fake.received(key), id).length === 3 ? true : undefined));
    const statuses = statusesOf(fake.received(key), id);
    expect(statuses.map((s) => s.status)).toEqual(["sent", "delivered", "read"]);
    expect(statuses[0]).toEqual({
      id,
      status: "sent",
      timestamp: expect.stringMatching(/^\d{10}$/),
      recipient_id: "15550006666",
      pricing: { billable: false, pricing_model: "PMP", type: "free_customer_service", category: "service" },
    });
    expect(fake.received(key).every((r) => signatureValid(r.headers, r.raw, num.app_secret))).toBe(true);
    const next = await control(`/numbers/${num.phone_number_id}/conversations/15550006666/next?timeout_ms=1000`);
    expect(next.body).toMatchObject({ direction: "outbound", id, type: "text", text: "Hi! How can I help?" });
  });

  it("a user without read receipts never sends read", async () => {
    const { num, key } = await hookedNumber();
    await wa.send(num.phone_number_id, "15550007777", { text: "hi" });
    await control(`/numbers/${num.phone_number_id}/users/15550007777/settings`, { body: { read_receipts: false } });
    const id = ((await sendText(num, "15550007777", "hello")).body.messages as Array<{ id: string }>)[0]?.id as string;
    await found(() => (statusesOf(fake.received(key), id).length === 2 ? true : undefined));
    await sleep(100);
    expect(statusesOf(fake.received(key), id).map((s) => s.status)).toEqual(["sent", "delivered"]);
  });

  it("outside the 24-hour window free text fails with 131047; a template still goes", async () => {
    const { num, key } = await hookedNumber();
    await wa.send(num.phone_number_id, "15550008888", { text: "hi" });
    const aged = await control(`/numbers/${num.phone_number_id}/users/15550008888/age`, { body: { hours: 25 } });
    expect(aged.body).toMatchObject({ window_open: false });
    const res = await sendText(num, "15550008888", "Still there?");
    expect(res.status).toBe(200); // accepted; the failure comes as a status, as at Meta
    const id = (res.body.messages as Array<{ id: string }>)[0]?.id as string;
    const [failed] = await found(() => {
      const s = statusesOf(fake.received(key), id);
      return s.length ? s : undefined;
    });
    expect(failed).toMatchObject({
      status: "failed",
      recipient_id: "15550008888",
      errors: [
        {
          code: 131047,
          title: "Re-engagement message",
          message: "Re-engagement message",
          error_data: {
            details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
          },
        },
      ],
    });
    // a user who never wrote is outside the window too
    const cold = (await sendText(num, "15550009999", "Hello stranger")).body.messages as Array<{ id: string }>;
    await found(() => statusesOf(fake.received(key), cold[0]?.id as string)[0]);

    const template = await graph(num.access_token, "POST", `${num.phone_number_id}/messages`, {
      messaging_product: "whatsapp",
      to: "15550008888",
      type: "template",
      template: { name: "hello_world", language: { code: "en_US" } },
    });
    const tid = (template.body.messages as Array<{ id: string; message_status: string }>)[0];
    expect(tid?.message_status).toBe("accepted");
    await found(() => (statusesOf(fake.received(key), tid?.id as string).length === 3 ? true : undefined));
    expect(statusesOf(fake.received(key), tid?.id as string)[0]?.pricing).toEqual({
      billable: true,
      pricing_model: "PMP",
      type: "regular",
      category: "utility",
    });
    const unknown = await graph(num.access_token, "POST", `${num.phone_number_id}/messages`, {
      messaging_product: "whatsapp",
      to: "15550008888",
      type: "template",
      template: { name: "no_such_template", language: { code: "en_US" } },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe(132001);
    const log = (await control(`/numbers/${num.phone_number_id}/conversations/15550008888`)).body;
    expect(log.window_open).toBe(false);
    expect((log.messages as Array<{ error?: { code: number } }>)[1]?.error?.code).toBe(131047);
  });

  it("refuses bad requests with Graph error bodies", async () => {
    const num = wa.createNumber();
    const other = wa.createNumber();
    const path = `${num.phone_number_id}/messages`;
    const cases: Array<[string | undefined, string, unknown, number, number, RegExp]> = [
      [undefined, path, { messaging_product: "whatsapp" }, 401, 190, /Invalid OAuth access token/],
      ["EAAGnotatoken", path, { messaging_product: "whatsapp" }, 401, 190, /Invalid OAuth access token/],
      [other.access_token, path, { messaging_product: "whatsapp" }, 400, 100, /Object with ID '\d+' does not exist/],
      [num.access_token, path, { to: "15550001234", text: { body: "x" } }, 400, 100, /The parameter messaging_product is required/],
      [num.access_token, path, { messaging_product: "sms", to: "1", text: { body: "x" } }, 400, 100, /must be one of \{WHATSAPP\}/],
      [num.access_token, path, { messaging_product: "whatsapp", text: { body: "x" } }, 400, 131008, /Required parameter is missing/],
      [num.access_token, path, { messaging_product: "whatsapp", to: "hello", text: { body: "x" } }, 400, 100, /Invalid parameter/],
      [num.access_token, path, { messaging_product: "whatsapp", to: "15550001234", type: "fax" }, 400, 100, /Param type must be one of/],
      [num.access_token, path, { messaging_product: "whatsapp", to: "15550001234", type: "image", image: {} }, 400, 131009, /not valid/],
      [num.access_token, path, { messaging_product: "whatsapp", to: "15550001234", type: "text" }, 400, 131008, /Required parameter/],
      [num.access_token, path, { messaging_product: "whatsapp", to: "15550001234", text: { body: "x".repeat(4097) } }, 400, 100, /4096/],
      [num.access_token, path, { messaging_product: "whatsapp", to: "15550001234", type: "audio", audio: {} }, 400, 131008, /audio/],
      [
        num.access_token,
        path,
        { messaging_product: "whatsapp", to: "15550001234", type: "audio", audio: { id: "123" } },
        400,
        100,
        /media id/,
      ],
    ];
    for (const [token, p, body, status, code, message] of cases) {
      const res = await graph(token, "POST", p, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error?.code, JSON.stringify(body)).toBe(code);
      expect(`${res.body.error?.message} ${res.body.error?.error_data?.details ?? ""}`).toMatch(message);
      expect(res.body.error?.fbtrace_id).toMatch(/^A\w{22}$/);
    }
    const wrongOwner = await graph(other.access_token, "POST", path, { messaging_product: "whatsapp" });
    expect(wrongOwner.body.error).toMatchObject({ type: "GraphMethodException", error_subcode: 33 });
  });

  it("a fault makes the next send fail with Meta's error and status", async () => {
    const num = wa.createNumber();
    await control(`/numbers/${num.phone_number_id}/faults`, { body: { code: 130429 } });
    const limited = await sendText(num, "15550001000", "x");
    expect([limited.status, limited.body.error?.code, limited.body.error?.message]).toEqual([429, 130429, "(#130429) Rate limit hit"]);
    expect((await sendText(num, "15550001000", "x")).status).toBe(200);
  });

  it("marks a user's message read and shows a typing indicator", async () => {
    const num = wa.createNumber();
    const m = await wa.send(num.phone_number_id, "15550001001", { text: "hi" });
    const read = await graph(num.access_token, "POST", `${num.phone_number_id}/messages`, {
      messaging_product: "whatsapp",
      status: "read",
      message_id: m.id,
      typing_indicator: { type: "text" },
    });
    expect(read).toEqual({ status: 200, body: { success: true } });
    expect(wa.conversation(num.phone_number_id, "15550001001")[0]).toMatchObject({ read_by_business: true, typing_indicator: true });
    const unknown = await graph(num.access_token, "POST", `${num.phone_number_id}/messages`, {
      messaging_product: "whatsapp",
      status: "read",
      message_id: "wamid.nope",
    });
    expect(unknown.status).toBe(400);
  });

  it("answers GET /{phone-number-id}, and the version segment as vNN.N", async () => {
    const num = wa.createNumber({ verified_name: "Acme" });
    const res = await graph(num.access_token, "GET", num.phone_number_id);
    expect(res.body).toMatchObject({
      id: num.phone_number_id,
      verified_name: "Acme",
      display_phone_number: `+${num.display_phone_number}`,
    });
    const older = await fetch(`${wa.url}/v19.0/${num.phone_number_id}`, { headers: { authorization: `Bearer ${num.access_token}` } });
    expect(older.status).toBe(200);
    const bad = await fetch(`${wa.url}/vnext/${num.phone_number_id}`, { headers: { authorization: `Bearer ${num.access_token}` } });
    expect(bad.status).toBe(400);
  });
});

describe("media and voice notes", () => {
  it("a user's voice note: audio with voice true, its URL from GET /{media-id}, downloaded with the token, transcribed back", async () => {
    const { num, key } = await hookedNumber();
    const words = "Do you have a table for four on Friday?";
    await wa.send(num.phone_number_id, "15550002001", { voice: words });
    const r = await found(() => fake.received(key)[0]);
    const message = r.body.entry[0]?.changes[0]?.value.messages?.[0] as unknown as {
      type: string;
      audio: { id: string; mime_type: string; sha256: string; voice: boolean };
    };
    expect(message.type).toBe("audio");
    expect(message.audio).toMatchObject({ mime_type: "audio/wav", voice: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const meta = await graph(num.access_token, "GET", message.audio.id);
    expect(meta.body).toMatchObject({
      messaging_product: "whatsapp",
      id: message.audio.id,
      mime_type: "audio/wav",
      sha256: message.audio.sha256,
    });
    const url = meta.body.url as string;
    expect((await fetch(url)).status).toBe(401);
    const other = wa.createNumber();
    expect((await fetch(url, { headers: { authorization: `Bearer ${other.access_token}` } })).status).toBe(404);
    expect((await graph(other.access_token, "GET", message.audio.id)).body.error?.error_subcode).toBe(33);
    const download = await fetch(url, { headers: { authorization: `Bearer ${num.access_token}` } });
    expect(download.headers.get("content-type")).toBe("audio/wav");
    const audio = Buffer.from(await download.arrayBuffer());
    expect(audio.length).toBe(meta.body.file_size);
    expect(createHash("sha256").update(audio).digest("hex")).toBe(message.audio.sha256);
    expect(await transcribe(audio)).toBe(words);
    const tampered = url.replace(/hash=(\w)/, (_, c: string) => `hash=${c === "0" ? "1" : "0"}`);
    expect((await fetch(tampered, { headers: { authorization: `Bearer ${num.access_token}` } })).status).toBe(404);
  });

  it("media upload accepts WhatsApp's audio types and refuses a WAV; a voice message by id is played", async () => {
    const { num, key } = await hookedNumber();
    await wa.send(num.phone_number_id, "15550002002", { text: "send me audio" });
    const upload = async (data: Buffer, type: string) => {
      const form = new FormData();
      form.append("messaging_product", "whatsapp");
      form.append("type", type);
      form.append("file", new Blob([data], { type }), "reply");
      const res = await fetch(`${wa.url}/${VERSION}/${num.phone_number_id}/media`, {
        method: "POST",
        headers: { authorization: `Bearer ${num.access_token}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as GraphBody };
    };
    const wav = await speech("A spoken reply.");
    const refused = await upload(wav, "audio/wav");
    expect([refused.status, refused.body.error?.code]).toEqual([400, 100]);
    expect(refused.body.error?.message).toMatch(/audio\/aac, audio\/amr, audio\/mp4, audio\/mpeg, audio\/ogg/);
    const ogg = Buffer.alloc(128);
    ogg.write("OggS", 0, "latin1");
    const ok = await upload(ogg, "audio/ogg");
    expect(ok.status).toBe(200);
    const sent = await graph(num.access_token, "POST", `${num.phone_number_id}/messages`, {
      messaging_product: "whatsapp",
      to: "15550002002",
      type: "audio",
      audio: { id: ok.body.id, voice: true },
    });
    const id = (sent.body.messages as Array<{ id: string }>)[0]?.id as string;
    await found(() => (statusesOf(fake.received(key), id).length === 4 ? true : undefined));
    expect(statusesOf(fake.received(key), id).map((s) => s.status)).toEqual(["sent", "delivered", "read", "played"]);
  });

  it("an audio link that does not download fails the message with 131053", async () => {
    const { num, key } = await hookedNumber();
    await wa.send(num.phone_number_id, "15550002003", { text: "hi" });
    const sent = await graph(num.access_token, "POST", `${num.phone_number_id}/messages`, {
      messaging_product: "whatsapp",
      to: "15550002003",
      type: "audio",
      audio: { link: `${fake.origin}/missing.ogg` },
    });
    const id = (sent.body.messages as Array<{ id: string }>)[0]?.id as string;
    const [failed] = await found(() => {
      const s = statusesOf(fake.received(key), id);
      return s.length ? s : undefined;
    });
    expect(failed).toMatchObject({ status: "failed", errors: [{ code: 131053, title: "Media upload error" }] });
  });
});

describe("the control API", () => {
  it("creates numbers, waits for the business, and refuses malformed requests", async () => {
    const created = await control("/numbers", { body: { verified_name: "Shop", display_phone_number: "+1 555 010 0000" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      verified_name: "Shop",
      display_phone_number: "15550100000",
      access_token: expect.stringMatching(/^EAAG/),
    });
    const pnid = created.body.phone_number_id as string;
    expect((await control(`/numbers/${pnid}/users/abc/messages`, { body: { text: "x" } })).status).toBe(400);
    expect((await control(`/numbers/${pnid}/users/15550003001/messages`, { body: { text: "x", sticker: true } })).status).toBe(400);
    expect((await control(`/numbers/${pnid}/users/15550003001/age`, { body: { hours: 2 } })).status).toBe(409);
    expect((await control("/numbers/1/users/15550003001/messages", { body: { text: "x" } })).status).toBe(404);
    await wa.send(pnid, "15550003001", { text: "anyone?" });
    const none = await control(`/numbers/${pnid}/conversations/15550003001/next?timeout_ms=100`);
    expect(none.status).toBe(408);
    const second = wa.createNumber({ app_id: created.body.app_id as string });
    expect(second.app_secret).toBe(created.body.app_secret);
  });
});

// ---------------------------------------------------------------------------------------------

async function speech(text: string): Promise<Buffer> {
  const res = await fetch(`${provider.url}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${provider.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "tts-1", voice: "alloy", input: text, response_format: "wav" }),
  });
  return Buffer.from(await res.arrayBuffer());
}

async function transcribe(audio: Buffer): Promise<string> {
  const form = new FormData();
  form.append("model", "whisper-1");
  form.append("response_format", "text");
  form.append("file", new Blob([audio], { type: "audio/wav" }), "voice.wav");
  const res = await fetch(`${provider.url}/audio/transcriptions`, {
    method: "POST",
    headers: { authorization: `Bearer ${provider.apiKey}` },
    body: form,
  });
  return (await res.text()).trim();
}
