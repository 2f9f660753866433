// Messaging benchmark (issue 14: "inbound message → reply sent, p50 and p95, against the bare LLM
// call in the same run, and 50 concurrent conversations with 0 lost or duplicated replies").
//
// Everything goes through the real worker and its real adapters: channels are connected with
// POST /v1/channels to bots and numbers of the stack's Telegram and WhatsApp sandboxes
// (dev/sandbox/telegram.ts, dev/sandbox/whatsapp.ts, in this process as `stack.telegram` and
// `stack.whatsapp`), whose scripted users send the messages; the sandboxes POST the updates and
// notifications to the worker's webhooks, and the agent's reply comes back through the Bot API's
// sendMessage or the Graph API's /messages. The sandboxes log both sides with `atMs`.
//
// 1. Latency: N end users one after another, each sending two texts (the first opens the
//    conversation). Per message: from the sandbox's webhook POST of the update (its first
//    attempt) to the reply arriving at the sandbox. Right after each reply, the bare LLM call:
//    the provider sandbox's /v1/chat/completions called from here with the messages the worker
//    sent (the agent's prompt and instructions, the conversation so far). Both percentiles and
//    the difference, per message, are the platform's own share. Run once on the instant provider
//    sandbox and once with the agent's model `fault-slow-<ms>`: the sandbox's only way to be slow
//    is that fixed delay per request (docs/sandbox.md, "Fault models"); it has no latency profile
//    modelled on a provider's published figures.
// 2. Concurrency: 50 conversations at once (50 users, several messages each), on one Telegram
//    bot, on one WhatsApp number, and spread over several bots and numbers. Half the users wait
//    for each reply before they write again; the other half send their messages 0 to 300 ms apart,
//    so messages arrive while the previous one of the conversation is being answered. Then: every
//    message answered exactly once and in order (0 lost, 0 duplicated), one conversation per user
//    in the database whose transcript is the messages and the replies as the user saw them, and no
//    inbound message left unanswered.
//
// Runs inside `npm run bench` (bench/run.ts, `--only messaging`).
import { randomUUID } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { TelegramSandbox } from "../dev/sandbox/telegram";
import type { WhatsAppSandbox } from "../dev/sandbox/whatsapp";
import type { Stack } from "../dev/stack";
import { createDb, type Db } from "../src/db/client";
import { chats, messagingInbound, usageEvents } from "../src/db/schema";
import { instructionsFor } from "../src/messaging/conversation";
import { adjustCredits } from "../src/metering/meter";
import { chatMessages, REPLY_MAX_TOKENS } from "../src/widgets/reply";
import { percentile, round, table } from "./report";
import type { BenchWorkspace } from "./setup";

/** Latency users (each sends two texts), and users at once with their messages each. */
export const MESSAGING_DEFAULTS = { users: 20, delayedUsers: 8, concurrent: 50, messagesEach: 4 };
export const MESSAGING_QUICK = { users: 4, delayedUsers: 2, concurrent: 50, messagesEach: 2 };
/**
 * The provider's delay in the second latency run: `fault-slow-500`. A round figure of our choosing,
 * not a provider's published latency (the sandbox has no such profile): it shows whether the
 * platform's share moves when the LLM takes time.
 */
export const PROVIDER_DELAY_MS = 500;
const SYSTEM_PROMPT = "You help {{user_name}} on {{channel}}.";
/** The provider sandbox's answer to a text (docs/sandbox.md, "Chat: the rules", rule 4), for texts without final punctuation. */
const expectedReply = (text: string) => `You said: ${text}.`;
const REPLY_TIMEOUT_MS = 30_000;
/** After the last message is sent, how long the concurrency round waits for the missing replies. */
const ROUND_DEADLINE_MS = 60_000;
/** After every reply is in: how long the round keeps watching for duplicates before it counts. */
const SETTLE_MS = 1_500;
const BURST_GAP_MS = 300;
/** Between two messages of the latency part: the work after a reply (its turn, the settlement) is done by then. */
const GAP_MS = 250;
/** WhatsApp's statuses of a reply come up to 1 s after it (the sandbox's `read`); waited out before a count is read. */
const STATUSES_MS = 1_500;

type ChannelType = "telegram" | "whatsapp";

/** One side of a conversation as the sandbox logged it. */
interface LogLine {
  from: "user" | "bot";
  text: string;
  atMs: number;
}

interface SentMessage {
  text: string;
  /** The sandbox's log time of the user's message. */
  atMs: number;
  /** The sandbox's first webhook POST of it: its start (epoch ms) and how long the worker took to answer it. */
  webhook: () => { atMs: number; ackMs: number; status?: number; error?: string } | undefined;
  /** The bot's next message after this one (null on timeout). */
  nextReply: (timeoutMs: number) => Promise<LogLine | null>;
}

/** A bot or a number connected as a channel, and its users. */
interface BenchChannel {
  type: ChannelType;
  id: string;
  send(user: number, text: string): Promise<SentMessage>;
  /** Both sides of the user's conversation, in order (chat actions and statuses left out). */
  log(user: number): LogLine[];
  /** The end user's id as the platform stores it. */
  endUserId(user: number): string;
  /** Webhook attempts that did not get a 2xx, each as its status or error (the sandbox retries them, as the provider does). */
  failedWebhookAttempts(): string[];
}

interface Context {
  stack: Stack;
  telegram: TelegramSandbox;
  whatsapp: WhatsAppSandbox;
  apiKey: string;
  db: Db;
  log: (line: string) => void;
}

const userName = (user: number) => `Bench User ${user}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const countKinds = (xs: string[]) =>
  [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())]
    .map(([kind, count]) => ({ kind, count }))
    .sort((a, b) => b.count - a.count);
const isoMs = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN);

async function api<T>(ctx: Context, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${ctx.stack.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

interface BenchAgent {
  id: string;
  llmModel: string;
  temperature: number;
  systemPrompt: string;
}

const createAgent = (ctx: Context, llmModel: string) =>
  api<BenchAgent>(ctx, "/v1/agents", {
    name: `Bench messaging agent (${llmModel})`,
    personaId: randomUUID(),
    llmModel,
    systemPrompt: SYSTEM_PROMPT,
  });

async function connectTelegram(ctx: Context, agentId: string, n: number): Promise<BenchChannel> {
  const tg = ctx.telegram;
  const bot = tg.createBot({ first_name: `Bench bot ${n}` });
  const channel = await api<{ id: string }>(ctx, "/v1/channels", {
    type: "telegram",
    name: `Bench bot ${n}`,
    agentId,
    credentials: { botToken: bot.token },
  });
  // Telegram user ids are the chat ids; a range per bot keeps them apart in the logs.
  const chatId = (user: number) => 7_000_000 + n * 10_000 + user;
  const log = (user: number): LogLine[] =>
    tg
      .chat(bot.id, chatId(user))
      .filter((e) => e.kind !== "chat_action")
      .map((e) => ({ from: e.from, text: e.text ?? "", atMs: e.atMs }));
  return {
    type: "telegram",
    id: channel.id,
    endUserId: (user) => String(chatId(user)),
    log,
    failedWebhookAttempts: () =>
      tg
        .deliveries(bot.id)
        .filter((d) => d.outcome === "retry" || d.outcome === "dropped")
        .map((d) => d.error ?? String(d.status)),
    async send(user, text) {
      const update = await tg.send(bot.id, chatId(user), { text }, { first_name: userName(user) });
      const entry = tg.chat(bot.id, chatId(user)).find((e) => e.update_id === update.update_id);
      const messageId = update.message?.message_id ?? 0;
      return {
        text,
        atMs: entry?.atMs ?? Date.now(),
        webhook: () => {
          const a = tg.deliveries(bot.id).find((d) => d.update_id === update.update_id && !d.redelivery && d.attempt === 1);
          return a && { atMs: isoMs(a.at), ackMs: a.ms, status: a.status, error: a.error };
        },
        nextReply: async (timeoutMs) => {
          try {
            const e = await tg.nextBotMessage(bot.id, chatId(user), { after: messageId, timeoutMs });
            return { from: "bot", text: e.text ?? "", atMs: e.atMs };
          } catch {
            return null;
          }
        },
      };
    },
  };
}

async function connectWhatsApp(ctx: Context, agentId: string, n: number): Promise<BenchChannel> {
  const wa = ctx.whatsapp;
  const number = wa.createNumber({ verified_name: `Bench line ${n}` });
  const verifyToken = `bench-verify-${randomUUID()}`;
  const channel = await api<{ id: string; webhookUrl: string }>(ctx, "/v1/channels", {
    type: "whatsapp",
    name: `Bench line ${n}`,
    agentId,
    credentials: {
      phoneNumberId: number.phone_number_id,
      accessToken: number.access_token,
      appSecret: number.app_secret,
      verifyToken,
    },
  });
  await wa.configureWebhook(number.app_id, { callback_url: channel.webhookUrl, verify_token: verifyToken });
  const pnid = number.phone_number_id;
  // WhatsApp ids are phone numbers: 49 (Germany) + 10 digits, a range per number.
  const waId = (user: number) => String(49_1500_000_000 + n * 10_000 + user);
  const log = (user: number): LogLine[] =>
    wa.conversation(pnid, waId(user)).map((e) => ({ from: e.direction === "inbound" ? "user" : "bot", text: e.text ?? "", atMs: e.atMs }));
  return {
    type: "whatsapp",
    id: channel.id,
    endUserId: waId,
    log,
    failedWebhookAttempts: () =>
      wa
        .notifications(number.app_id)
        .flatMap((x) => x.attempts.filter((a) => a.error && !a.redelivery).map((a) => `${x.kind} notification: ${a.error}`)),
    async send(user, text) {
      const sent = await wa.send(pnid, waId(user), { text }, { profile_name: userName(user) });
      const entry = wa.conversation(pnid, waId(user)).find((e) => e.id === sent.id);
      return {
        text,
        atMs: entry?.atMs ?? Date.now(),
        webhook: () => {
          const a = wa
            .notifications(number.app_id)
            .find((x) => x.id === sent.notification_id)
            ?.attempts.find((x) => !x.redelivery);
          return a && { atMs: isoMs(a.at), ackMs: a.ms, status: a.status, error: a.error };
        },
        nextReply: async (timeoutMs) => {
          try {
            const e = await wa.nextBusinessMessage(pnid, waId(user), { after: sent.id, timeoutMs });
            return { from: "bot", text: e.text ?? "", atMs: e.atMs };
          } catch {
            return null;
          }
        },
      };
    },
  };
}

const connect = (ctx: Context, type: ChannelType, agentId: string, n: number) =>
  type === "telegram" ? connectTelegram(ctx, agentId, n) : connectWhatsApp(ctx, agentId, n);

/** The sandbox's first webhook POST of a message; it is recorded once the worker has answered it. */
async function webhookOf(m: SentMessage) {
  for (let i = 0; i < 50; i++) {
    const w = m.webhook();
    if (w) return w;
    await sleep(20);
  }
  return undefined;
}

// -- 1. latency ---------------------------------------------------------------------------------

export interface Spread {
  n: number;
  p50: number;
  p95: number;
}

const spread = (xs: number[]): Spread => ({ n: xs.length, p50: round(percentile(xs, 50), 1), p95: round(percentile(xs, 95), 1) });

export interface LatencyResult {
  channel: ChannelType;
  /** The agent's model: `sandbox-chat` (instant) or `fault-slow-<ms>`. */
  model: string;
  providerDelayMs: number;
  users: number;
  /** Webhook POST of the update → the reply at the sandbox, every message / first of a conversation / the second. */
  reply: Spread;
  replyFirst: Spread;
  replyNext: Spread;
  /** The bare LLM call from here, same messages. */
  bare: Spread;
  /** Per message: its reply time less its bare call's. */
  share: Spread;
  /** How long the worker took to answer the webhook POST (the acknowledgement). */
  ack: Spread;
  /** The user's send (the sandbox's log) → the reply: the above plus the sandbox's own queueing. */
  userToReply: Spread;
  /** Messages without a reply in time, or whose reply is not the provider's answer to it. */
  failures: number;
  /**
   * Bare calls whose answer differs from the reply the user got, and users whose metered prompt
   * tokens (usage_events) are not the bare calls': the messages were not the same.
   */
  bareMismatches: number;
  /**
   * Requests to the SQL-over-HTTP endpoint per message: the webhook, the answer, the settlement
   * after it, and on WhatsApp the statuses of the reply (sent, delivered, read), each a webhook too.
   */
  sqlPerMessage: number;
}

async function bareCall(ctx: Context, agent: BenchAgent, messages: ReturnType<typeof chatMessages>) {
  const started = performance.now();
  const res = await fetch(`${ctx.stack.provider.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${ctx.stack.provider.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: agent.llmModel, messages, temperature: agent.temperature, max_tokens: REPLY_MAX_TOKENS, stream: false }),
    signal: AbortSignal.timeout(REPLY_TIMEOUT_MS),
  });
  const body = (await res.json()) as { choices?: Array<{ message?: { content?: string | null } }>; usage?: { prompt_tokens?: number } };
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`the provider sandbox answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return { ms, content: (body.choices?.[0]?.message?.content ?? "").trim(), promptTokens: body.usage?.prompt_tokens ?? null };
}

async function measureLatency(ctx: Context, type: ChannelType, agent: BenchAgent, users: number, n: number): Promise<LatencyResult> {
  const channel = await connect(ctx, type, agent.id, n);
  const reply: number[] = [];
  const byTurn: [number[], number[]] = [[], []];
  const bare: number[] = [];
  const share: number[] = [];
  const ack: number[] = [];
  const userToReply: number[] = [];
  let failures = 0;
  let bareMismatches = 0;
  let sqlBefore = 0;
  const bareTokens: Array<{ user: number; promptTokens: number | null }> = [];
  // Warm-up, not measured: the first conversation of a channel and the first bare call.
  for (let u = 0; u <= users; u++) {
    const warm = u === 0;
    if (u === 1) {
      await sleep(STATUSES_MS); // the warm-up's statuses and settlements, out of the count
      sqlBefore = ctx.stack.sqlHttpStats().requests;
    }
    const history: Array<{ role: "user" | "agent"; text: string }> = [];
    for (const turn of [0, 1] as const) {
      const text = `Latency check ${turn + 1} from user ${u} on ${type}`;
      // The work after the previous reply (its turn written, the settlement, WhatsApp's first statuses) ends first.
      await sleep(GAP_MS);
      // The bare call first, with the messages the worker will send: the conversation so far and this text.
      history.push({ role: "user", text });
      const b = await bareCall(ctx, agent, chatMessages(agent, history, instructionsFor(type), { channel: type, user_name: userName(u) }));
      bareTokens.push({ user: u, promptTokens: b.promptTokens });
      const m = await channel.send(u, text);
      const got = await m.nextReply(REPLY_TIMEOUT_MS);
      const hook = await webhookOf(m);
      if (warm) {
        if (got) history.push({ role: "agent", text: got.text });
        continue;
      }
      if (!got || got.text !== expectedReply(text) || !hook) {
        failures++;
        ctx.log(`messaging: ${type}, user ${u}, message ${turn + 1}: ${got ? `answered "${got.text}"` : "no reply in time"}`);
        if (got) history.push({ role: "agent", text: got.text });
        continue;
      }
      history.push({ role: "agent", text: got.text });
      if (b.content !== got.text) bareMismatches++;
      const ms = got.atMs - hook.atMs;
      reply.push(ms);
      byTurn[turn].push(ms);
      bare.push(b.ms);
      share.push(ms - b.ms);
      ack.push(hook.ackMs);
      userToReply.push(got.atMs - m.atMs);
    }
  }
  await sleep(STATUSES_MS);
  const sqlRequests = ctx.stack.sqlHttpStats().requests - sqlBefore;
  // The same messages: the prompt tokens the worker was metered for, call by call, are the bare calls'.
  const metered = await ctx.db
    .select({ endUserId: chats.endUserId, promptTokens: usageEvents.promptTokens })
    .from(usageEvents)
    .innerJoin(chats, eq(usageEvents.chatId, chats.id))
    .where(and(eq(chats.channelId, channel.id), eq(usageEvents.modality, "chat")))
    .orderBy(usageEvents.createdAt, usageEvents.id);
  for (let u = 0; u <= users; u++) {
    const ours = metered.filter((r) => r.endUserId === channel.endUserId(u)).map((r) => r.promptTokens);
    const theirs = bareTokens.filter((b) => b.user === u).map((b) => b.promptTokens);
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
      bareMismatches++;
      ctx.log(`messaging: ${type}, user ${u}: prompt tokens metered ${JSON.stringify(ours)}, bare calls ${JSON.stringify(theirs)}`);
    }
  }
  return {
    channel: type,
    model: agent.llmModel,
    providerDelayMs: /^fault-slow-(\d+)$/.exec(agent.llmModel) ? Number(agent.llmModel.slice("fault-slow-".length)) : 0,
    users,
    reply: spread(reply),
    replyFirst: spread(byTurn[0]),
    replyNext: spread(byTurn[1]),
    bare: spread(bare),
    share: spread(share),
    ack: spread(ack),
    userToReply: spread(userToReply),
    failures,
    bareMismatches,
    sqlPerMessage: round(sqlRequests / (users * 2), 1),
  };
}

// -- 2. concurrency -----------------------------------------------------------------------------

export interface ConcurrencyResult {
  label: string;
  channels: number;
  users: number;
  messagesEach: number;
  messages: number;
  /** Messages with no reply, with more than one, replies out of the order of the messages, and replies that answer none of them. */
  lost: number;
  duplicated: number;
  outOfOrder: number;
  strayReplies: number;
  /**
   * Replies out of order because the earlier message's first webhook POST failed and its retry came
   * after a later message had been answered: the providers' own retry semantics (Meta does not
   * promise order; Telegram holds a chat's later updates back), not counted in `outOfOrder`.
   */
  reorderedByRetry: number;
  /** Users whose conversation in the database is not exactly one, with the messages and replies they saw, in order. */
  transcriptMismatches: number;
  /** Inbound messages the database still holds as pending or processing at the end. */
  inboundLeft: number;
  /** Webhook attempts that did not get a 2xx, and what they got, by kind. */
  webhookFailures: number;
  webhookFailureKinds: Array<{ kind: string; count: number }>;
  /** Requests to the SQL-over-HTTP endpoint during the round, per message. */
  sqlPerMessage: number;
  /** First message sent → last reply received, seconds. */
  seconds: number;
  /** Webhook POST of the update → its reply, over every answered message. */
  reply: Spread;
  /** The same, for the users who wait for each reply (their messages never queue behind their own). */
  replyWaiting: Spread;
  /** This process's worst event-loop stall during the round (it hosts the sandboxes and sends the load), ms. */
  loopDelayMaxMs: number;
  /** A few examples of what went wrong. */
  examples: string[];
  /** The worker's error lines during the round, counted by kind. */
  workerErrors: Array<{ kind: string; count: number }>;
}

interface Plan {
  label: string;
  channels: Array<{ type: ChannelType; users: number }>;
}

async function concurrencyRound(
  ctx: Context,
  agent: BenchAgent,
  plan: Plan,
  messagesEach: number,
  first: number,
  workerErrors: () => Array<{ kind: string; count: number }>,
): Promise<ConcurrencyResult> {
  const channels = await Promise.all(plan.channels.map((c, i) => connect(ctx, c.type, agent.id, first + i)));
  const users = plan.channels.flatMap((c, i) =>
    Array.from({ length: c.users }, (_, u) => ({ channel: channels[i] as BenchChannel, user: u + 1 })),
  );
  const sent = new Map<string, SentMessage[]>();
  const key = (c: BenchChannel, user: number) => `${c.id}/${user}`;
  workerErrors();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const sqlBefore = ctx.stack.sqlHttpStats().requests;
  const started = Date.now();
  // Even users wait for each reply before writing again; odd users write their messages 0-300 ms apart.
  await Promise.all(
    users.map(async ({ channel, user }, i) => {
      const mine: SentMessage[] = [];
      sent.set(key(channel, user), mine);
      for (let k = 1; k <= messagesEach; k++) {
        const m = await channel.send(user, `Message ${k} of user ${user} on ${channel.type} channel ${channel.id.slice(-6)}`);
        mine.push(m);
        if (i % 2 === 0) await m.nextReply(REPLY_TIMEOUT_MS);
        else if (k < messagesEach) await sleep(Math.random() * BURST_GAP_MS);
      }
    }),
  );
  // Wait for the replies still missing, then a little longer: a duplicate comes after the reply it repeats.
  const deadline = Date.now() + ROUND_DEADLINE_MS;
  const replies = (c: BenchChannel, user: number) => c.log(user).filter((l) => l.from === "bot").length;
  while (Date.now() < deadline && users.some(({ channel, user }) => replies(channel, user) < messagesEach)) await sleep(100);
  await sleep(SETTLE_MS);
  loop.disable();
  const sqlRequests = ctx.stack.sqlHttpStats().requests - sqlBefore;

  let lost = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  let reorderedByRetry = 0;
  let strayReplies = 0;
  let lastReply = started;
  const reply: number[] = [];
  const replyWaiting: number[] = [];
  const examples: string[] = [];
  const example = (s: string) => {
    if (examples.length < 5) examples.push(s);
  };
  const seen = new Map<string, LogLine[]>();
  for (const [i, { channel, user }] of users.entries()) {
    const mine = sent.get(key(channel, user)) ?? [];
    const bot = channel.log(user).filter((l) => l.from === "bot");
    seen.set(key(channel, user), bot);
    const counts = mine.map(() => 0);
    let previous = -1;
    for (const line of bot) {
      const k = mine.findIndex((m) => expectedReply(m.text) === line.text);
      if (k < 0) {
        strayReplies++;
        example(`${channel.type} user ${user}: a reply that answers none of the messages: "${line.text.slice(0, 80)}"`);
        continue;
      }
      counts[k] = (counts[k] ?? 0) + 1;
      if (k < previous) {
        const failed = mine[k]?.webhook()?.error;
        if (failed) reorderedByRetry++;
        else outOfOrder++;
        example(
          `${channel.type} user ${user}: the reply to message ${k + 1} came after the reply to message ${previous + 1}` +
            (failed
              ? ` (the first webhook POST of message ${k + 1} failed, "${failed}", and its retry came after message ${previous + 1})`
              : ""),
        );
      }
      previous = Math.max(previous, k);
      if (counts[k] === 1) {
        const hook = mine[k]?.webhook();
        if (hook) {
          reply.push(line.atMs - hook.atMs);
          if (i % 2 === 0) replyWaiting.push(line.atMs - hook.atMs);
        }
        lastReply = Math.max(lastReply, line.atMs);
      }
    }
    counts.forEach((c, k) => {
      if (c === 0) {
        lost++;
        example(`${channel.type} user ${user}: message ${k + 1} got no reply`);
      } else if (c > 1) {
        duplicated += c - 1;
        example(`${channel.type} user ${user}: message ${k + 1} got ${c} replies`);
      }
    });
  }

  // The database: one conversation per user, whose turns are what the user sent and saw, in order.
  // A reply's turn is written right after its send, so a mismatch is read again for a few seconds.
  const ids = channels.map((c) => c.id);
  const webhookFailed = channels.flatMap((c) => c.failedWebhookAttempts());
  let transcriptMismatches = 0;
  for (let attempt = 0; attempt < 10; attempt++) {
    const sessions = await ctx.db
      .select({ channelId: chats.channelId, endUserId: chats.endUserId, transcript: chats.transcript })
      .from(chats)
      .where(inArray(chats.channelId, ids));
    const problems: string[] = [];
    for (const { channel, user } of users) {
      const mine = sessions.filter((s) => s.channelId === channel.id && s.endUserId === channel.endUserId(user));
      if (mine.length !== 1) {
        problems.push(`${channel.type} user ${user}: ${mine.length} conversations in the database`);
        continue;
      }
      // Each reply the user got, in the order it came, after the message it answers: a message
      // answered after a later one is recorded where it was answered (and counted out of order above).
      const messages = sent.get(key(channel, user)) ?? [];
      const want = (seen.get(key(channel, user)) ?? []).flatMap((l) => {
        const m = messages.find((x) => expectedReply(x.text) === l.text);
        return m
          ? [
              { role: "user", text: m.text },
              { role: "agent", text: l.text },
            ]
          : [];
      });
      const got = (mine[0]?.transcript ?? []).map((t) => ({ role: t.role, text: t.text }));
      if (JSON.stringify(got) !== JSON.stringify(want))
        problems.push(
          `${channel.type} user ${user}: the transcript has ${got.length} turns, the user saw ${want.length} (or not the same)`,
        );
    }
    transcriptMismatches = problems.length;
    if (problems.length === 0 || attempt === 9) {
      for (const p of problems) example(p);
      break;
    }
    await sleep(500);
  }
  const [left] = await ctx.db
    .select({ n: sql<number>`count(*)::int` })
    .from(messagingInbound)
    .where(sql`${inArray(messagingInbound.channelId, ids)} and ${messagingInbound.status} <> 'done'`);

  return {
    label: plan.label,
    channels: channels.length,
    users: users.length,
    messagesEach,
    messages: users.length * messagesEach,
    lost,
    duplicated,
    outOfOrder,
    reorderedByRetry,
    strayReplies,
    transcriptMismatches,
    inboundLeft: left?.n ?? 0,
    webhookFailures: webhookFailed.length,
    webhookFailureKinds: countKinds(webhookFailed),
    sqlPerMessage: round(sqlRequests / (users.length * messagesEach), 1),
    seconds: round((lastReply - started) / 1000, 1),
    reply: spread(reply),
    replyWaiting: spread(replyWaiting),
    loopDelayMaxMs: round(loop.max / 1e6, 0),
    examples,
    workerErrors: workerErrors(),
  };
}

/** Whether a round lost, repeated, reordered or misrecorded anything. */
export const roundFailed = (r: ConcurrencyResult) =>
  r.lost + r.duplicated + r.outOfOrder + r.strayReplies + r.transcriptMismatches + r.inboundLeft > 0;

// -- the part -----------------------------------------------------------------------------------

export interface MessagingBenchOptions {
  /** Users one after another in the latency part (each sends two texts). */
  users: number;
  /** The same with the provider's fixed delay (fewer: each message waits for it twice). */
  delayedUsers: number;
  /** Conversations at once. */
  concurrent: number;
  /** Messages each user sends in the concurrency rounds. */
  messagesEach: number;
  log: (line: string) => void;
  /** The worker's error lines since the last call, by kind (bench/worker-log.ts). */
  workerErrors?: () => Array<{ kind: string; count: number }>;
}

export interface MessagingBenchResult {
  latency: LatencyResult[];
  concurrency: ConcurrencyResult[];
  /** Latency messages that got no reply or a wrong one. */
  latencyFailures: number;
  seconds: number;
}

/** Spreads `total` users over `parts` channels as evenly as possible. */
const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
const split = (total: number, parts: number) =>
  Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));

export async function runMessagingBench(stack: Stack, ws: BenchWorkspace, opts: MessagingBenchOptions): Promise<MessagingBenchResult> {
  const { telegram, whatsapp } = stack;
  if (!telegram || !whatsapp || !stack.provider.sandbox)
    throw new Error(
      "the messaging bench needs the local Telegram, WhatsApp and provider sandboxes; unset TELEGRAM_API_BASE_URL, WHATSAPP_API_BASE_URL and OPENAI_API_KEY",
    );
  const started = performance.now();
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  const workerErrors = opts.workerErrors ?? (() => []);
  try {
    // Hundreds of metered replies: plenty of credits, so the balance is never what answers.
    await adjustCredits(db, ws.organizationId, { addMicro: 1_000_000_000 });
    const ctx: Context = { stack, telegram, whatsapp, apiKey: ws.apiKey, db, log: opts.log };
    const instant = await createAgent(ctx, "sandbox-chat");
    const delayed = await createAgent(ctx, `fault-slow-${PROVIDER_DELAY_MS}`);
    let n = 0;

    const latency: LatencyResult[] = [];
    for (const [agent, users] of [
      [instant, opts.users],
      [delayed, opts.delayedUsers],
    ] as const) {
      if (users <= 0) continue;
      for (const type of ["telegram", "whatsapp"] as const) {
        opts.log(`messaging: latency on ${type}, agent model ${agent.llmModel}: ${users} users one after another, 2 texts each…`);
        latency.push(await measureLatency(ctx, type, agent, users, ++n));
      }
    }

    const concurrency: ConcurrencyResult[] = [];
    const c = opts.concurrent;
    const several = Math.max(2, Math.min(10, Math.floor(c / 5)));
    const perChannel = split(c, several);
    const plans: Plan[] = [
      { label: `1 Telegram bot, ${c} users`, channels: [{ type: "telegram", users: c }] },
      { label: `1 WhatsApp number, ${c} users`, channels: [{ type: "whatsapp", users: c }] },
      {
        label: `${several} channels (${plural(Math.ceil(several / 2), "bot")}, ${plural(Math.floor(several / 2), "number")}), ${c} users`,
        channels: perChannel.map((users, i) => ({ type: i % 2 === 0 ? "telegram" : "whatsapp", users })),
      },
    ];
    if (c > 0)
      for (const plan of plans) {
        opts.log(`messaging: ${plan.label} at once, ${opts.messagesEach} messages each…`);
        const r = await concurrencyRound(ctx, instant, plan, opts.messagesEach, n, workerErrors);
        n += plan.channels.length;
        concurrency.push(r);
        opts.log(
          `    ${r.messages} messages in ${r.seconds} s: lost ${r.lost}, duplicated ${r.duplicated}, out of order ${r.outOfOrder}, ` +
            `transcripts not matching ${r.transcriptMismatches}; reply p50 ${r.reply.p50} ms, p95 ${r.reply.p95} ms`,
        );
      }
    return {
      latency,
      concurrency,
      latencyFailures: latency.reduce((k, l) => k + l.failures, 0),
      seconds: round((performance.now() - started) / 1000, 0),
    };
  } finally {
    await pool.end();
  }
}

// -- report -------------------------------------------------------------------------------------

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 && n > -10 ? n.toFixed(1) : n.toFixed(0)) : "—");
const signed = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? "+" : "−"}${ms(Math.abs(n))}` : "—");

export function latencyLines(latency: LatencyResult[]): string[] {
  if (latency.length === 0) return [];
  const rows = latency.flatMap((l) => {
    const where = `${l.channel}, ${l.providerDelayMs ? `provider +${l.providerDelayMs} ms` : "instant provider"}`;
    return [
      [`${where}: webhook POST → reply at the sandbox`, l.reply.n, ms(l.reply.p50), ms(l.reply.p95)],
      ["  first message (opens the conversation)", l.replyFirst.n, ms(l.replyFirst.p50), ms(l.replyFirst.p95)],
      ["  second message", l.replyNext.n, ms(l.replyNext.p50), ms(l.replyNext.p95)],
      ["  bare LLM call from here, same messages", l.bare.n, ms(l.bare.p50), ms(l.bare.p95)],
      ["  difference of the percentiles", "", signed(l.reply.p50 - l.bare.p50), signed(l.reply.p95 - l.bare.p95)],
      ["  platform share: reply − its bare call, per message", l.share.n, ms(l.share.p50), ms(l.share.p95)],
      ["  webhook acknowledged (the POST's answer)", l.ack.n, ms(l.ack.p50), ms(l.ack.p95)],
      ["  user's send → reply (the sandbox's queue included)", l.userToReply.n, ms(l.userToReply.p50), ms(l.userToReply.p95)],
      ["  SQL-over-HTTP requests per message (mean)", l.users * 2, l.sqlPerMessage, ""],
    ];
  });
  const failures = latency.filter((l) => l.failures > 0 || l.bareMismatches > 0);
  return [
    "Messaging latency: inbound message → reply, users one after another (ms)",
    table(["measure", "n", "p50", "p95"], rows, new Set([1, 2, 3])),
    `  provider +${PROVIDER_DELAY_MS} ms: the agent's model fault-slow-${PROVIDER_DELAY_MS}, the provider sandbox's fixed delay (it has no latency profile of a real provider).`,
    ...failures.map(
      (l) =>
        `  ${l.channel} ${l.model}: ${l.failures} messages without their reply in time, ${l.bareMismatches} bare calls that did not answer what the user got`,
    ),
  ];
}

export function concurrencyLines(rounds: ConcurrencyResult[]): string[] {
  if (rounds.length === 0) return [];
  const lines = [
    "Messaging concurrency: conversations at once (half the users wait for each reply, half write 0-300 ms apart)",
    table(
      [
        "conversations",
        "messages",
        "lost",
        "duplicated",
        "out of order",
        "reordered by retry",
        "stray",
        "transcripts off",
        "inbound left",
        "webhook retries",
        "SQL/msg",
        "reply p50",
        "reply p95",
        "waiting users p95",
        "loop delay max",
        "s",
      ],
      rounds.map((r) => [
        r.label,
        r.messages,
        r.lost,
        r.duplicated,
        r.outOfOrder,
        r.reorderedByRetry,
        r.strayReplies,
        r.transcriptMismatches,
        r.inboundLeft,
        r.webhookFailures,
        r.sqlPerMessage,
        ms(r.reply.p50),
        ms(r.reply.p95),
        ms(r.replyWaiting.p95),
        r.loopDelayMaxMs,
        r.seconds,
      ]),
      new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
    ),
    "  reordered by retry: a message whose first webhook POST failed and whose retry came after a later message was answered",
    "  (not counted as out of order: the provider's retry order, which Meta does not promise either);",
    "  reply: webhook POST of the message → its reply at the sandbox, ms; s: first message sent → last reply received;",
    "  SQL/msg: requests to the SQL-over-HTTP endpoint per message (mean); loop delay: this process's worst event-loop stall, ms.",
  ];
  for (const r of rounds.filter((r) => roundFailed(r) || r.webhookFailures > 0)) {
    lines.push(`  ${r.label}: ${roundFailed(r) ? "FAILED" : "every reply right, but webhook attempts were refused and retried"}`);
    for (const e of r.examples) lines.push(`    ${e}`);
    for (const w of r.webhookFailureKinds.slice(0, 5)) lines.push(`    webhook: ${String(w.count).padStart(5)} × ${w.kind}`);
    for (const w of r.workerErrors.slice(0, 5)) lines.push(`    worker: ${String(w.count).padStart(5)} × ${w.kind}`);
  }
  return lines;
}
