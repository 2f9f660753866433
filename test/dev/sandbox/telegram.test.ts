// The Telegram sandbox must answer the platform's adapter as the Bot API does and deliver updates as
// Telegram's Bot API server does. This test plays the bot: a small HTTP server receives the webhook
// deliveries (the secret token checked with node:crypto), and the provider sandbox transcribes the
// users' voice notes.
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { type BotInfo, startTelegramSandbox, type TelegramSandbox, type TelegramUpdate } from "../../../dev/sandbox/telegram";
import { found } from "./wait";

const UNIT = 25; // one of Telegram's retry seconds, in ms, for these tests
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The stand-in bot: records every delivery per path and answers as told.

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  update: TelegramUpdate;
  at: number;
}

type Answer = { status: number; delayMs?: number; headers?: Record<string, string> };

interface FakeBot {
  origin: string;
  deliveries(key: string): Delivery[];
  /** Answers for the next deliveries to /hook/{key}, in order; then 200. */
  answer(key: string, ...answers: Answer[]): void;
  stop(): Promise<void>;
}

async function startFakeBot(): Promise<FakeBot> {
  const got = new Map<string, Delivery[]>();
  const plans = new Map<string, Answer[]>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const key = /^\/hook\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "";
    const list = got.get(key) ?? [];
    list.push({ path: req.url ?? "", headers: req.headers, body, update: JSON.parse(body) as TelegramUpdate, at: performance.now() });
    got.set(key, list);
    const plan = plans.get(key)?.shift() ?? { status: 200 };
    if (plan.delayMs) await sleep(plan.delayMs);
    if (!res.destroyed) res.writeHead(plan.status, plan.headers ?? {}).end(plan.status === 200 ? "" : "no");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("fake bot did not bind");
  return {
    origin: `http://127.0.0.1:${addr.port}`,
    deliveries: (key) => got.get(key) ?? [],
    answer: (key, ...answers) => plans.set(key, [...(plans.get(key) ?? []), ...answers]),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const arrived = (list: Delivery[], i: number) => (list[i] as Delivery).at;

/** The Bot API's secret check, as a receiver does it. */
const secretMatches = (headers: IncomingHttpHeaders, secret: string) => {
  const got = Buffer.from(String(headers["x-telegram-bot-api-secret-token"] ?? ""));
  const want = Buffer.from(secret);
  return got.length === want.length && timingSafeEqual(got, want);
};

// ---------------------------------------------------------------------------------------------

let provider: ProviderSandbox;
let tg: TelegramSandbox;
let fake: FakeBot;
let keys = 0;

beforeAll(async () => {
  provider = await startProviderSandbox();
  tg = await startTelegramSandbox({ provider: { url: provider.url, apiKey: provider.apiKey }, retryUnitMs: UNIT });
  fake = await startFakeBot();
});
afterAll(async () => {
  await tg?.stop();
  await fake?.stop();
  await provider?.stop();
});

type Api = {
  status: number;
  headers: Headers;
  body: { ok: boolean; result?: unknown; description?: string; error_code?: number; parameters?: { retry_after?: number } };
};

async function api(
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  as: "json" | "form" | "query" = "json",
): Promise<Api> {
  const url = new URL(`${tg.url}/bot${token}/${method}`);
  let init: RequestInit = { method: "POST" };
  if (as === "json") init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) };
  if (as === "form")
    init = {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(
        Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]),
      ).toString(),
    };
  if (as === "query") {
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, typeof v === "string" ? v : JSON.stringify(v));
    init = { method: "GET" };
  }
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers as unknown as Headers, body: (await res.json()) as Api["body"] };
}

async function control(path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${tg.url}/__sandbox${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json" },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
}

/** A bot with its webhook at /hook/{key} (each test its own bot and key). */
async function hookedBot(opts: { secret?: string; max_connections?: number; allowed_updates?: string[] } = {}) {
  const key = `k${++keys}`;
  const bot = tg.createBot();
  const set = await api(bot.token, "setWebhook", {
    url: `${fake.origin}/hook/${key}`,
    secret_token: opts.secret ?? `secret-${key}`,
    ...opts,
  });
  expect(set.body).toEqual({ ok: true, result: true, description: "Webhook was set" });
  return { bot, key, secret: opts.secret ?? `secret-${key}` };
}

describe("Bot API requests", () => {
  it("answers getMe in every form Telegram accepts, with case-insensitive method names", async () => {
    const bot = tg.createBot({ username: "forms_test_bot", first_name: "Forms" });
    const expected = { id: bot.id, is_bot: true, first_name: "Forms", username: "forms_test_bot" };
    for (const as of ["json", "form", "query"] as const) {
      const res = await api(bot.token, as === "query" ? "GETME" : "getMe", {}, as);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: true, result: expected });
    }
    const form = new FormData();
    form.append("chat_id", "1");
    const multipart = await fetch(`${tg.url}/bot${bot.token}/getme`, { method: "POST", body: form });
    expect(((await multipart.json()) as Api["body"]).result).toMatchObject(expected);
  });

  it("refuses unknown, malformed and revoked tokens, unknown methods and paths as Telegram does", async () => {
    const bot = tg.createBot();
    expect(await api(`${bot.id}:AAwrongwrongwrongwrongwrongwrongwro`, "getMe")).toMatchObject({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    });
    expect((await api("not-a-token", "getMe")).body).toEqual({
      ok: false,
      error_code: 401,
      description: "Unauthorized: invalid token specified",
    });
    expect((await api(bot.token, "fooBar")).body).toEqual({ ok: false, error_code: 404, description: "Not Found: method not found" });
    const unimplemented = await api(bot.token, "getUpdates");
    expect(unimplemented.status).toBe(501);
    expect(unimplemented.body.description).toMatch(/does not implement getUpdates/);
    const res = await fetch(`${tg.url}/elsewhere`);
    expect([res.status, await res.json()]).toEqual([404, { ok: false, error_code: 404, description: "Not Found" }]);
    expect((await control(`/bots/${bot.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await api(bot.token, "getMe")).body.description).toBe("Unauthorized");
  });

  it("a fault makes the next call fail: 429 with retry_after and Retry-After, or the error asked for", async () => {
    const bot = tg.createBot();
    expect((await control(`/bots/${bot.id}/faults`, { body: { method: "getMe", error_code: 429, retry_after: 7 } })).status).toBe(200);
    tg.fault(bot.id, { error_code: 500, count: 1 });
    const limited = await api(bot.token, "getMe");
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      ok: false,
      error_code: 429,
      description: "Too Many Requests: retry after 7",
      parameters: { retry_after: 7 },
    });
    expect(limited.headers.get("retry-after")).toBe("7");
    expect((await api(bot.token, "getWebhookInfo")).body).toEqual({ ok: false, error_code: 500, description: "Internal Server Error" });
    expect((await api(bot.token, "getMe")).body.ok).toBe(true);
  });
});

describe("setWebhook, deleteWebhook, getWebhookInfo", () => {
  it("refuses bad secret tokens, URLs and hosts with Telegram's descriptions", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: `${fake.origin}/x`, secret_token: "has space" }, "Bad Request: secret token contains unallowed characters"],
      [{ url: `${fake.origin}/x`, secret_token: "a".repeat(257) }, "Bad Request: secret token is too long"],
      [{ url: "ftp://example.com/hook" }, "Bad Request: invalid webhook URL specified"],
      [{ url: "not a url" }, "Bad Request: invalid webhook URL specified"],
      [{ url: "https://sandbox-test.invalid/hook" }, "Bad Request: bad webhook: Failed to resolve host: Name or service not known"],
    ];
    for (const [params, description] of cases) {
      const bot = tg.createBot(); // a bot may change its webhook once a second
      expect((await api(bot.token, "setWebhook", params)).body).toEqual({ ok: false, error_code: 400, description });
      expect((await api(bot.token, "getWebhookInfo")).body.result).toEqual({
        url: "",
        has_custom_certificate: false,
        pending_update_count: 0,
      });
    }
  });

  it("sets, reports, refuses a second change within a second, and deletes", async () => {
    const bot = tg.createBot();
    const url = `${fake.origin}/hook/info`;
    expect(
      (await api(bot.token, "setWebhook", { url, secret_token: "s_1-A", max_connections: 5, allowed_updates: ["message"] })).body,
    ).toEqual({
      ok: true,
      result: true,
      description: "Webhook was set",
    });
    const again = await api(bot.token, "setWebhook", { url, secret_token: "s_1-A", max_connections: 5 });
    expect(again.status).toBe(429);
    expect(again.body.parameters).toEqual({ retry_after: 1 });
    expect(again.headers.get("retry-after")).toBe("1");
    await sleep(1_050);
    expect((await api(bot.token, "setWebhook", { url, secret_token: "s_1-A", max_connections: 5 }, "form")).body.description).toBe(
      "Webhook is already set",
    );
    expect((await api(bot.token, "getWebhookInfo")).body.result).toEqual({
      url,
      has_custom_certificate: false,
      pending_update_count: 0,
      ip_address: "127.0.0.1",
      max_connections: 5,
      allowed_updates: ["message"],
    });
    expect((await api(bot.token, "deleteWebhook")).body).toEqual({ ok: true, result: true, description: "Webhook was deleted" });
    expect((await api(bot.token, "deleteWebhook")).body.description).toBe("Webhook is already deleted");
  });

  it("keeps updates while no webhook is set, delivers them once one is, and drop_pending_updates discards them", async () => {
    const bot = tg.createBot();
    await tg.send(bot.id, 501, { text: "one" });
    await tg.send(bot.id, 501, { text: "two" });
    expect(((await api(bot.token, "getWebhookInfo")).body.result as { pending_update_count: number }).pending_update_count).toBe(2);
    const key = `k${++keys}`;
    await api(bot.token, "setWebhook", { url: `${fake.origin}/hook/${key}` });
    await found(() => (fake.deliveries(key).length === 2 ? true : undefined));
    expect(fake.deliveries(key).map((d) => d.update.message.text)).toEqual(["one", "two"]);
    expect(fake.deliveries(key)[0]?.headers["x-telegram-bot-api-secret-token"]).toBeUndefined(); // no secret set, no header

    expect((await api(bot.token, "deleteWebhook")).body.description).toBe("Webhook was deleted");
    await tg.send(bot.id, 501, { text: "three" });
    await sleep(1_050);
    await api(bot.token, "setWebhook", { url: `${fake.origin}/hook/${key}`, drop_pending_updates: true });
    await sleep(100);
    expect(fake.deliveries(key)).toHaveLength(2);
    expect(((await api(bot.token, "getWebhookInfo")).body.result as { pending_update_count: number }).pending_update_count).toBe(0);
  });

  it("an allowed_updates without message means no message updates reach the webhook", async () => {
    const { bot, key } = await hookedBot({ allowed_updates: ["callback_query"] });
    await tg.send(bot.id, 77, { text: "ignored" });
    await sleep(100);
    expect(fake.deliveries(key)).toHaveLength(0);
  });
});

describe("webhook deliveries", () => {
  it("POSTs each Update with the secret token header; update_id rises per bot, message_id per chat", async () => {
    const { bot, key, secret } = await hookedBot();
    const u1 = await tg.send(bot.id, 1001, { text: "/start hello" }, { first_name: "Ada", last_name: "L", username: "ada" });
    const u2 = await tg.send(bot.id, 1002, { text: "Hi" });
    const u3 = await tg.send(bot.id, 1001, { text: "Again" });
    await found(() => (fake.deliveries(key).length === 3 ? true : undefined));
    const got = fake.deliveries(key);
    for (const d of got) {
      expect(secretMatches(d.headers, secret)).toBe(true);
      expect(secretMatches(d.headers, `${secret}x`)).toBe(false);
      expect(d.headers["content-type"]).toBe("application/json");
    }
    expect([u2.update_id - u1.update_id, u3.update_id - u2.update_id]).toEqual([1, 1]);
    expect([u1.message.message_id, u2.message.message_id, u3.message.message_id]).toEqual([1, 1, 2]);
    const first = got.find((d) => d.update.update_id === u1.update_id) as Delivery;
    expect(first.update).toEqual({
      update_id: u1.update_id,
      message: {
        message_id: 1,
        from: { id: 1001, is_bot: false, first_name: "Ada", last_name: "L", username: "ada", language_code: "en" },
        chat: { id: 1001, type: "private", first_name: "Ada", last_name: "L", username: "ada" },
        date: expect.any(Number),
        text: "/start hello",
        entities: [{ type: "bot_command", offset: 0, length: 6 }],
      },
    });
    expect(Math.abs(first.update.message.date - Date.now() / 1000)).toBeLessThan(5);
    expect(tg.deliveries(bot.id).every((a) => a.outcome === "delivered" && a.status === 200)).toBe(true);
  });

  it("stickers and locations arrive as Telegram builds them", async () => {
    const { bot, key } = await hookedBot();
    await tg.send(bot.id, 3003, { sticker: { emoji: "🎉" } });
    await control(`/bots/${bot.id}/users/3003/messages`, { body: { location: { latitude: 51.5, longitude: -0.12 } } });
    await found(() => (fake.deliveries(key).length === 2 ? true : undefined));
    const [sticker, location] = fake.deliveries(key).map((d) => d.update.message);
    expect(sticker?.sticker).toMatchObject({ emoji: "🎉", width: 512, height: 512, is_animated: false, is_video: false, type: "regular" });
    expect(location?.location).toEqual({ latitude: 51.5, longitude: -0.12 });
    expect(sticker?.text).toBeUndefined();
  });

  it("a failed update is retried with Telegram's backoff (at once, then 2, 4… units) and holds back its chat's later updates", async () => {
    const { bot, key } = await hookedBot();
    fake.answer(key, { status: 500 }, { status: 502 }, { status: 503 });
    const a = await tg.send(bot.id, 2001, { text: "A" });
    await tg.send(bot.id, 2001, { text: "B" });
    await tg.send(bot.id, 2001, { text: "C" });
    await found(() => (fake.deliveries(key).length === 6 ? true : undefined));
    const got = fake.deliveries(key);
    expect(got.map((d) => d.update.message.text)).toEqual(["A", "A", "A", "A", "B", "C"]);
    // attempt 2 follows at once; attempt 3 waits 2 units; attempt 4 waits 4
    expect(arrived(got, 1) - arrived(got, 0)).toBeLessThan(2 * UNIT);
    expect(arrived(got, 2) - arrived(got, 1)).toBeGreaterThanOrEqual(2 * UNIT - 5);
    expect(arrived(got, 3) - arrived(got, 2)).toBeGreaterThanOrEqual(4 * UNIT - 5);
    const attempts = tg.deliveries(bot.id).filter((x) => x.update_id === a.update_id);
    expect(attempts.map((x) => [x.attempt, x.outcome, x.status])).toEqual([
      [1, "retry", 500],
      [2, "retry", 502],
      [3, "retry", 503],
      [4, "delivered", 200],
    ]);
    expect(attempts.map((x) => x.retryInMs)).toEqual([0, 2 * UNIT, 4 * UNIT, undefined]);
    const info = (await api(bot.token, "getWebhookInfo")).body.result as Record<string, unknown>;
    expect(info.last_error_message).toBe("Wrong response from the webhook: 503 Service Unavailable");
    expect(Math.abs((info.last_error_date as number) - Date.now() / 1000)).toBeLessThan(5);
  });

  it("honours the webhook's Retry-After", async () => {
    const { bot, key } = await hookedBot();
    fake.answer(key, { status: 429, headers: { "retry-after": "6" } });
    await tg.send(bot.id, 2101, { text: "later" });
    await found(() => (fake.deliveries(key).length === 2 ? true : undefined));
    const got = fake.deliveries(key);
    expect(arrived(got, 1) - arrived(got, 0)).toBeGreaterThanOrEqual(6 * UNIT - 5);
  });

  it("chats are delivered in parallel: one chat's stuck update does not hold another's; max_connections 1 does", async () => {
    const { bot, key } = await hookedBot();
    fake.answer(key, { status: 200, delayMs: 400 });
    await tg.send(bot.id, 4001, { text: "slow" });
    await found(() => (fake.deliveries(key).length === 1 ? true : undefined));
    await tg.send(bot.id, 4002, { text: "fast" });
    await found(() => (fake.deliveries(key).length === 2 ? true : undefined), 300);

    const serial = await hookedBot({ max_connections: 1 });
    fake.answer(serial.key, { status: 200, delayMs: 300 });
    await tg.send(serial.bot.id, 4001, { text: "slow" });
    await found(() => (fake.deliveries(serial.key).length === 1 ? true : undefined));
    await tg.send(serial.bot.id, 4002, { text: "waits" });
    await sleep(150);
    expect(fake.deliveries(serial.key)).toHaveLength(1);
    await found(() => (fake.deliveries(serial.key).length === 2 ? true : undefined));
  });

  it("a webhook that does not answer in time, or cannot be reached, fails the attempt with Telegram's message", async () => {
    const slow = await startTelegramSandbox({ retryUnitMs: UNIT, webhookTimeoutMs: 150 });
    try {
      const bot = slow.createBot();
      const key = `k${++keys}`;
      fake.answer(key, { status: 200, delayMs: 400 });
      await api2(slow, bot, "setWebhook", { url: `${fake.origin}/hook/${key}` });
      await slow.send(bot.id, 5001, { text: "hello" });
      await found(() => slow.deliveries(bot.id).find((a) => a.outcome === "delivered"));
      expect(slow.deliveries(bot.id).map((a) => [a.error, a.outcome])).toEqual([
        ["Read timeout expired", "retry"],
        [undefined, "delivered"],
      ]);

      const closed = slow.createBot();
      const gone = await startFakeBot();
      const url = `${gone.origin}/hook/gone`;
      await gone.stop();
      await api2(slow, closed, "setWebhook", { url });
      await slow.send(closed.id, 5002, { text: "anyone?" });
      await found(() => slow.deliveries(closed.id)[0]);
      expect(slow.deliveries(closed.id)[0]?.error).toBe("Connection refused");
      expect(slow.bot(closed.id).webhook.last_error_message).toBe("Connection refused");
    } finally {
      await slow.stop();
    }
  });

  it("redelivers an update verbatim, as a duplicate, through the API and the control API", async () => {
    const { bot, key, secret } = await hookedBot();
    const u = await tg.send(bot.id, 6001, { text: "once" });
    await found(() => fake.deliveries(key)[0]);
    const again = await tg.redeliver(bot.id, u.update_id);
    expect(again).toMatchObject({ update_id: u.update_id, attempt: 2, redelivery: true, outcome: "duplicate", status: 200 });
    const viaControl = await control(`/bots/${bot.id}/updates/${u.update_id}/redeliver`, { body: {} });
    expect(viaControl.body).toMatchObject({ attempt: 3, redelivery: true });
    const got = fake.deliveries(key);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((d) => d.body)).size).toBe(1);
    expect(got.every((d) => secretMatches(d.headers, secret))).toBe(true);
    expect((await control(`/bots/${bot.id}/updates/1/redeliver`, { body: {} })).status).toBe(404);
  });
});

describe("the bot's side: sendMessage, sendChatAction, sendVoice, getFile", () => {
  let bot: BotInfo;
  beforeAll(async () => {
    ({ bot } = await hookedBot());
    await tg.send(bot.id, 7001, { text: "hi" });
  });

  it("sendMessage refuses with Telegram's descriptions, in Telegram's order", async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{}, 400, "Bad Request: message text is empty"],
      [{ chat_id: 7001, text: "" }, 400, "Bad Request: message text is empty"],
      [{ text: "x" }, 400, "Bad Request: chat_id is empty"],
      [{ chat_id: 999, text: "x" }, 400, "Bad Request: chat not found"],
      [{ chat_id: "@someone", text: "x" }, 400, "Bad Request: chat not found"],
      [{ chat_id: 7001, text: "x".repeat(4097) }, 400, "Bad Request: message is too long"],
      [{ chat_id: 7001, text: "x", parse_mode: "BBCode" }, 400, "Bad Request: unsupported parse_mode"],
    ];
    for (const [params, status, description] of cases)
      expect(await api(bot.token, "sendMessage", params)).toMatchObject({ status, body: { ok: false, error_code: status, description } });
  });

  it("sendMessage answers the Message and logs it; sendChatAction logs the action; next waits for the bot", async () => {
    const waiting = fetch(`${tg.url}/__sandbox/bots/${bot.id}/chats/7001/next?timeout_ms=3000`).then((r) => r.json());
    expect((await api(bot.token, "sendChatAction", { chat_id: 7001, action: "dance" })).body.description).toBe(
      "Bad Request: wrong parameter action in request",
    );
    expect((await api(bot.token, "sendChatAction", { chat_id: 7001, action: "typing" })).body).toEqual({ ok: true, result: true });
    const sent = await api(bot.token, "sendMessage", { chat_id: "7001", text: "*Hello*", parse_mode: "MarkdownV2" }, "form");
    expect(sent.body.result).toMatchObject({
      message_id: 2,
      from: { id: bot.id, is_bot: true, username: bot.username },
      chat: { id: 7001, type: "private" },
      text: "*Hello*",
    });
    expect(await waiting).toMatchObject({ from: "bot", kind: "text", text: "*Hello*", parse_mode: "MarkdownV2", message_id: 2 });
    const log = (await control(`/bots/${bot.id}/chats/7001`)).body.messages as Array<Record<string, unknown>>;
    expect(log.map((e) => [e.from, e.kind, e.text ?? e.action])).toEqual([
      ["user", "text", "hi"],
      ["bot", "chat_action", "typing"],
      ["bot", "text", "*Hello*"],
    ]);
    expect(Date.parse(log[2]?.at as string)).toBeGreaterThanOrEqual(Date.parse(log[0]?.at as string));
    const timeout = await fetch(`${tg.url}/__sandbox/bots/${bot.id}/chats/7001/next?after=2&timeout_ms=100`);
    expect(timeout.status).toBe(408);
  });

  it("a user who blocked the bot answers 403", async () => {
    await tg.send(bot.id, 7002, { text: "bye" });
    await control(`/bots/${bot.id}/users/7002/block`, { body: { blocked: true } });
    expect((await api(bot.token, "sendMessage", { chat_id: 7002, text: "x" })).body).toEqual({
      ok: false,
      error_code: 403,
      description: "Forbidden: bot was blocked by the user",
    });
    tg.block(bot.id, 7002, false);
    expect((await api(bot.token, "sendMessage", { chat_id: 7002, text: "x" })).body.ok).toBe(true);
  });

  it("sendVoice: OGG is a voice message, a WAV is a document (as Telegram), a file_id is reused, and refusals", async () => {
    expect((await api(bot.token, "sendVoice", { chat_id: 7001 })).body.description).toBe("Bad Request: there is no voice in the request");
    expect((await api(bot.token, "sendVoice", { chat_id: 7001, voice: "nope" })).body.description).toBe(
      "Bad Request: wrong file identifier/HTTP URL specified",
    );
    // An Ogg stream whose last page's granule position says 96,000 samples at 48 kHz: 2 s.
    const ogg = Buffer.alloc(64);
    ogg.write("OggS", 0, "latin1");
    ogg.writeBigUInt64LE(96_000n, 6);
    const form = new FormData();
    form.append("chat_id", "7001");
    form.append("voice", new Blob([ogg], { type: "audio/ogg" }), "reply.ogg");
    const voice = (await (await fetch(`${tg.url}/bot${bot.token}/sendVoice`, { method: "POST", body: form })).json()) as Api["body"];
    const v = (voice.result as { voice: { file_id: string; duration: number; mime_type: string; file_size: number } }).voice;
    expect(v).toMatchObject({ duration: 2, mime_type: "audio/ogg", file_size: 64 });

    const wav = await speech("This is a synthesized reply.");
    const wavForm = new FormData();
    wavForm.append("chat_id", "7001");
    wavForm.append("voice", new Blob([wav], { type: "audio/wav" }), "reply.wav");
    const doc = (await (await fetch(`${tg.url}/bot${bot.token}/sendVoice`, { method: "POST", body: wavForm })).json()) as Api["body"];
    expect((doc.result as { document: unknown }).document).toMatchObject({
      file_name: "reply.wav",
      mime_type: "audio/wav",
      file_size: wav.length,
    });
    expect((doc.result as { voice?: unknown }).voice).toBeUndefined();

    const reused = await api(bot.token, "sendVoice", { chat_id: 7001, voice: v.file_id });
    expect((reused.body.result as { voice: { file_id: string } }).voice.file_id).toBe(v.file_id);
    const kinds = tg
      .chat(bot.id, 7001)
      .filter((e) => e.from === "bot")
      .map((e) => e.kind);
    expect(kinds.slice(-3)).toEqual(["voice", "document", "voice"]);
  });

  it("getFile and the download: refusals, another bot's file, wrong token, unknown path", async () => {
    expect((await api(bot.token, "getFile", {})).body.description).toBe("Bad Request: file_id not specified");
    expect((await api(bot.token, "getFile", { file_id: "AwACAgIAAxkBAAnothing" })).body.description).toBe("Bad Request: invalid file_id");
    const u = await tg.send(bot.id, 7001, { sticker: true });
    const fileId = u.message.sticker?.file_id as string;
    const other = tg.createBot();
    expect((await api(other.token, "getFile", { file_id: fileId })).body.description).toBe("Bad Request: invalid file_id");
    const file = (await api(bot.token, "getFile", { file_id: fileId }, "query")).body.result as { file_path: string; file_size: number };
    expect(file.file_path).toMatch(/^stickers\/file_\d+\.webp$/);
    const ok = await fetch(`${tg.url}/file/bot${bot.token}/${file.file_path}`);
    expect([ok.status, ok.headers.get("content-type"), (await ok.arrayBuffer()).byteLength]).toEqual([200, "image/webp", file.file_size]);
    expect((await fetch(`${tg.url}/file/bot${other.token}/${file.file_path}`)).status).toBe(404);
    expect((await fetch(`${tg.url}/file/bot${bot.id}:AAwrongwrongwrongwrongwrongwrongwro/${file.file_path}`)).status).toBe(401);
  });
});

describe("voice notes", () => {
  it("a user's voice note is a WAV the provider sandbox transcribes back to the words", async () => {
    const { bot, key } = await hookedBot();
    const words = "I would like to book a table for two tonight.";
    const res = await control(`/bots/${bot.id}/users/8001/messages`, { body: { voice: words, from: { first_name: "Vee" } } });
    expect(res.status).toBe(202);
    const delivered = await found(() => fake.deliveries(key)[0]);
    const voice = delivered.update.message.voice as { file_id: string; mime_type: string; duration: number; file_size: number };
    expect(voice).toMatchObject({ mime_type: "audio/wav", duration: expect.any(Number) });
    expect(voice.duration).toBeGreaterThanOrEqual(1);
    const file = (await api(bot.token, "getFile", { file_id: voice.file_id })).body.result as { file_path: string };
    const audio = Buffer.from(await (await fetch(`${tg.url}/file/bot${bot.token}/${file.file_path}`)).arrayBuffer());
    expect(audio.length).toBe(voice.file_size);
    expect(await transcribe(audio)).toBe(words);
    expect(tg.chat(bot.id, 8001)[0]).toMatchObject({ from: "user", kind: "voice", text: words, mime_type: "audio/wav" });
  });

  it("messages from one user keep the order they were sent in, a voice note included", async () => {
    const { bot, key } = await hookedBot();
    const sends = [tg.send(bot.id, 8002, { voice: "First, a voice note." }), tg.send(bot.id, 8002, { text: "then text" })];
    const [v, t] = await Promise.all(sends);
    expect([v?.message.message_id, t?.message.message_id]).toEqual([1, 2]);
    await found(() => (fake.deliveries(key).length === 2 ? true : undefined));
    expect(fake.deliveries(key).map((d) => d.update.message.message_id)).toEqual([1, 2]);
  });
});

describe("the control API", () => {
  it("creates bots, refuses malformed users and content, and lists deliveries", async () => {
    const created = await control("/bots", { body: { username: "made_here_bot" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: "made_here_bot", token: expect.stringMatching(/^\d+:AA[\w-]{33}$/) });
    expect((await control("/bots", { body: { username: "not_a_b0t_name" } })).status).toBe(400);
    const id = created.body.id as number;
    expect((await control(`/bots/${id}/users/0/messages`, { body: { text: "x" } })).status).toBe(400);
    expect((await control(`/bots/${id}/users/5/messages`, { body: { text: "x", sticker: true } })).status).toBe(400);
    expect((await control(`/bots/${id}/users/5/messages`, { body: { location: { latitude: 100, longitude: 0 } } })).status).toBe(400);
    expect((await control(`/bots/${id}/users/5/messages`, { body: {} })).status).toBe(400);
    expect((await control("/bots/123/users/5/messages", { body: { text: "x" } })).status).toBe(404);
    expect((await control(`/bots/${id}/deliveries`)).body).toEqual([]);
    expect((await control(`/bots/${id}`)).body).toMatchObject({ id, webhook: { url: "", pending_update_count: 0 } });
  });
});

// ---------------------------------------------------------------------------------------------

async function api2(sandbox: TelegramSandbox, bot: BotInfo, method: string, params: Record<string, unknown>) {
  const res = await fetch(`${sandbox.url}/bot${bot.token}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return (await res.json()) as Api["body"];
}

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
