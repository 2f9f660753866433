// Dashboard benchmark (issue 31: "every dashboard page stays under 100 ms server time with 10,000
// calls in the workspace, and the calls list pages through all of them").
//
// Seeds the bench workspace with CALLS calls over the last 30 days as the platform writes them
// (a 12-turn transcript with each agent reply's latency, an analysis, a report, the reply
// latencies column, a cost, the metered uses that make it up with the usage log's daily totals,
// and the daily figures their endings add), CHATS chats (a 4-turn transcript, two metered replies) and 20 knowledge
// bases of 50 ready documents each (the workspace's default limit of 1,000 documents), signs in through the dashboard's own sign-in, then
// requests each page one at a time (RUNS times after a warm-up) next to GET /health measured the
// same way in the same run (the bare baseline: the worker's floor on this machine). The time is
// the client's, on localhost: the server's time plus the loopback and the dev proxy, which the
// baseline shows. Then it walks the calls list through every page ("Older calls") and checks it
// saw every call once, and times the CSV export of all of them.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Stack } from "../dev/stack";
import { addToDailyStats } from "../src/calls/queries/stats";
import { createDb } from "../src/db/client";
import {
  calls,
  chats,
  knowledgeBases,
  knowledgeDocuments,
  usageDailyStats,
  usageEvents,
  webhookAttempts,
  webhookDeliveries,
} from "../src/db/schema";
import { idAt } from "../src/lib/ids";
import { percentile, round, table } from "./report";
import type { BenchWorkspace } from "./setup";

export const DASHBOARD_DEFAULTS = { calls: 10_000, chats: 1_000, runs: 30 };
/** Knowledge bases and documents in each (20 × 50: the workspace's default limit, KNOWLEDGE_MAX_DOCUMENTS). */
const KNOWLEDGE = { bases: 20, documents: 50 };
export const DASHBOARD_QUICK = { calls: 2_000, chats: 200, runs: 5 };
/** The target for each page. */
export const PAGE_TARGET_MS = 100;
/** Deliveries in the seeded webhook endpoint's log. */
const DELIVERIES = 2_000;

interface PageTiming {
  label: string;
  path: string;
  status: number;
  p50: number;
  p95: number;
  bytes: number;
}

export interface DashboardBenchResult {
  calls: number;
  chats: number;
  runs: number;
  baseline: PageTiming;
  pages: PageTiming[];
  /** The calls list walked to its end. */
  walk: { pages: number; seen: number; unique: number; ms: number };
  csv: { rows: number; ms: number; bytes: number };
  failures: string[];
}

const DAY = 86_400_000;
const LATENCY = () => 450 + Math.round(Math.random() * 900);
/** Rows a multi-row insert takes (each usage row binds 14 parameters; Postgres takes at most 65,535). */
const INSERT_ROWS = 2_000;

type UsageRow = typeof usageEvents.$inferInsert;
const MODELS = {
  chat: { model: "gpt-4o-mini", unit: "tokens", quantity: 420 },
  stt: { model: "whisper-1", unit: "audio_ms", quantity: 3_000 },
  tts: { model: "tts-1", unit: "characters", quantity: 80 },
} as const;

/**
 * The metered uses a call's cost is made of, as a live call writes them: a transcription and an
 * LLM reply per caller turn, speech per agent turn, and the analysis' LLM request at the end (19
 * for a 12-turn call), the cost spread over them.
 */
function callUses(call: { id: string; organizationId: string; createdAt: Date; costMicro: number }, turns: number): UsageRow[] {
  const kinds: Array<keyof typeof MODELS> = [];
  for (let t = 0; t < turns; t++) kinds.push(...(t % 2 === 0 ? (["tts"] as const) : (["stt", "chat"] as const)));
  kinds.push("chat");
  const each = Math.floor(call.costMicro / kinds.length);
  return kinds.map((modality, k) => {
    const at = call.createdAt.getTime() + 2_000 + k * 2_000;
    return {
      id: idAt(at),
      organizationId: call.organizationId,
      method: "WS",
      endpoint: "/calls",
      modality,
      provider: "openai-compatible",
      model: MODELS[modality].model,
      status: 200,
      latencyMs: 200,
      unit: MODELS[modality].unit,
      quantity: MODELS[modality].quantity,
      costMicro: k === kinds.length - 1 ? call.costMicro - each * (kinds.length - 1) : each,
      callId: call.id,
      createdAt: new Date(at),
    };
  });
}

/** Writes metered uses, and adds them to the usage log's daily totals as the statements that log each one do. */
async function insertUses(db: ReturnType<typeof createDb>["db"], rows: UsageRow[]) {
  for (let i = 0; i < rows.length; i += INSERT_ROWS) await db.insert(usageEvents).values(rows.slice(i, i + INSERT_ROWS));
  const days = new Map<string, typeof usageDailyStats.$inferInsert>();
  for (const r of rows) {
    const day = (r.createdAt as Date).toISOString().slice(0, 10);
    const key = `${r.organizationId}|${day}|${r.modality}|${r.unit}`;
    const d = days.get(key) ?? {
      organizationId: r.organizationId,
      day,
      modality: r.modality,
      unit: r.unit,
      requests: 0,
      succeeded: 0,
      quantity: 0,
      costMicro: 0,
    };
    d.requests = (d.requests ?? 0) + 1;
    d.succeeded = (d.succeeded ?? 0) + (r.status < 400 ? 1 : 0);
    d.quantity = (d.quantity ?? 0) + (r.quantity ?? 0);
    d.costMicro = (d.costMicro ?? 0) + (r.costMicro ?? 0);
    days.set(key, d);
  }
  const t = usageDailyStats;
  if (days.size === 0) return;
  await db
    .insert(t)
    .values([...days.values()])
    .onConflictDoUpdate({
      target: [t.organizationId, t.day, t.modality, t.unit],
      set: {
        requests: sql`${t.requests} + excluded.requests`,
        succeeded: sql`${t.succeeded} + excluded.succeeded`,
        quantity: sql`${t.quantity} + excluded.quantity`,
        costMicro: sql`${t.costMicro} + excluded.cost_micro`,
      },
    });
}

/** A bench chat's messages: a booking, so a search for a word of it finds every chat, and one for a word of none reads them all. */
const CHAT_TURNS = [
  { role: "user" as const, text: "Hello, can I move my cleaning to Tuesday afternoon?" },
  { role: "agent" as const, text: "Of course. Tuesday at 3 pm is free; shall I book it?" },
  { role: "user" as const, text: "Yes please, and send me a reminder the day before." },
  { role: "agent" as const, text: "Done: Tuesday at 3 pm, with a reminder on Monday." },
];

async function seed(stack: Stack, ws: BenchWorkspace, n: { calls: number; chats: number }, log: (line: string) => void) {
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  try {
    const agents = Array.from({ length: 5 }, (_, i) => ({ id: null, name: `Bench agent ${i + 1}` }));
    const now = Date.now();
    const BATCH = 500;
    let usesSeeded = 0;
    for (let done = 0; done < n.calls; done += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, n.calls - done) }, (_, k) => {
        const i = done + k;
        const created = now - Math.floor((i / n.calls) * 30 * DAY) - 1_000;
        const turns = Array.from({ length: 12 }, (_, t) => ({
          role: t % 2 === 0 ? ("agent" as const) : ("user" as const),
          text:
            t % 2 === 0
              ? "Thanks for calling Acme dental, how can I help you today with your appointment?"
              : "I would like to move my cleaning to next Tuesday afternoon if that works.",
          startMs: t * 4_000,
          endMs: t * 4_000 + 3_000,
          ...(t % 2 === 0 && t > 0 ? { latency: { voiceToVoiceMs: LATENCY(), sttMs: 120, llmMs: 300, ttsMs: 150, platformMs: 40 } } : {}),
        }));
        const agent = agents[i % agents.length] as { id: null; name: string };
        return {
          id: idAt(created),
          organizationId: ws.organizationId,
          agentId: agent.id,
          agentName: agent.name,
          type: "phone" as const,
          direction: "outbound" as const,
          status: "completed" as const,
          endedReason: "customer-ended-call" as const,
          fromNumber: "+14155550100",
          toNumber: `+1202${String(5_550_000 + (i % 10_000)).padStart(7, "0")}`,
          transcript: turns,
          voiceToVoiceMs: turns.flatMap((t) => (t.latency ? [t.latency.voiceToVoiceMs] : [])),
          analysis: {
            summary: "The caller moved an appointment.",
            sentiment: "positive" as const,
            topics: ["appointments"],
            actionItems: [],
          },
          report: { successScore: i % 4 === 0 ? 0.5 : 1, criteriaResults: [], extractedData: { day: "Tuesday" } },
          startedAt: new Date(created + 2_000),
          endedAt: new Date(created + 50_000),
          deadlineAt: new Date(created + DAY),
          costMicro: 40_000 + (i % 7) * 1_000,
          createdAt: new Date(created),
        };
      });
      await db.insert(calls).values(rows);
      const uses = rows.flatMap((r) => callUses(r, r.transcript.length));
      await insertUses(db, uses);
      usesSeeded += uses.length;
      // The daily figures, as the calls' endings add them (one upsert per day and agent of the batch).
      const groups = new Map<
        string,
        { call: (typeof rows)[number]; n: number; seconds: number; cost: number; successSum: number; latencies: number[] }
      >();
      for (const r of rows) {
        const key = `${r.createdAt.toISOString().slice(0, 10)}|${r.agentName}`;
        const g = groups.get(key) ?? { call: r, n: 0, seconds: 0, cost: 0, successSum: 0, latencies: [] };
        g.n++;
        g.seconds += (r.endedAt.getTime() - r.startedAt.getTime()) / 1000;
        g.cost += r.costMicro;
        g.successSum += r.report.successScore;
        g.latencies.push(...r.voiceToVoiceMs);
        groups.set(key, g);
      }
      for (const g of groups.values())
        await addToDailyStats(db, g.call, {
          calls: g.n,
          connectedSeconds: g.seconds,
          costMicro: g.cost,
          analyzed: g.n,
          successSum: g.successSum,
          latencies: g.latencies,
        });
      if ((done + BATCH) % 2_000 === 0 || done + BATCH >= n.calls) log(`  ${Math.min(done + BATCH, n.calls)}/${n.calls} calls`);
    }
    for (let done = 0; done < n.chats; done += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, n.chats - done) }, (_, k) => {
        const started = now - Math.floor(((done + k) / n.chats) * 30 * DAY) - 1_000;
        return {
          id: idAt(started),
          organizationId: ws.organizationId,
          channel: "widget" as const,
          agentName: "Bench agent 1",
          endUserId: randomUUID(),
          status: "completed" as const,
          messageCount: CHAT_TURNS.length,
          transcript: CHAT_TURNS.map((t, k) => ({ ...t, at: new Date(started + k * 20_000).toISOString() })),
          startedAt: new Date(started),
          createdAt: new Date(started),
        };
      });
      await db.insert(chats).values(rows);
      // Each agent reply is an LLM request of the chat's.
      await insertUses(
        db,
        rows.flatMap((chat) =>
          [1, 3].map((k) => {
            const at = chat.startedAt.getTime() + k * 20_000;
            return {
              id: idAt(at),
              organizationId: chat.organizationId,
              method: "POST",
              endpoint: "/widget/v1/chat",
              modality: "chat" as const,
              provider: "openai-compatible",
              model: MODELS.chat.model,
              status: 200,
              latencyMs: 300,
              unit: MODELS.chat.unit,
              quantity: MODELS.chat.quantity,
              costMicro: 630,
              chatId: chat.id,
              createdAt: new Date(at),
            };
          }),
        ),
      );
    }
    log(`  ${n.chats} chats; ${(usesSeeded + n.chats * 2).toLocaleString("en-US")} metered uses in all`);
    // Knowledge bases with ready documents, as processing leaves them (their passages are not read by the pages).
    for (let b = 0; b < KNOWLEDGE.bases; b++) {
      const created = now - (KNOWLEDGE.bases - b) * DAY;
      const [base] = await db
        .insert(knowledgeBases)
        .values({ id: idAt(created), organizationId: ws.organizationId, name: `Bench knowledge ${b + 1}`, createdAt: new Date(created) })
        .returning({ id: knowledgeBases.id });
      await db.insert(knowledgeDocuments).values(
        Array.from({ length: KNOWLEDGE.documents }, (_, d) => ({
          id: idAt(created + (d + 1) * 60_000),
          organizationId: ws.organizationId,
          knowledgeBaseId: base?.id as string,
          name: `price-list-${d + 1}.pdf`,
          source: "file" as const,
          contentType: "application/pdf",
          sizeBytes: 48_000 + d,
          contentHash: randomUUID().replace(/-/g, "").padEnd(64, "0"),
          status: "ready" as const,
          chunkCount: 12,
          embeddedCount: 12,
          createdAt: new Date(created + (d + 1) * 60_000),
        })),
      );
    }
    log(`  ${KNOWLEDGE.bases} knowledge bases, ${KNOWLEDGE.bases * KNOWLEDGE.documents} documents`);
    // Postgres' autovacuum keeps a growing table's statistics (autoanalyze); a bulk seed measured at
    // once would be planned as for empty tables (the usage log's organization index taken as
    // selective: a lateral look-up by chat reading every row of the workspace). Analyzed as it would be.
    await db.execute(sql`analyze calls, chats, usage_events, call_daily_stats, usage_daily_stats, knowledge_bases, knowledge_documents`);
  } finally {
    await pool.end();
  }
}

/** What the pages beyond calls, chats and knowledge show, made through the API as a user would, and their ids. */
interface PageSeeds {
  agentId: string;
  testRunId: string | null;
  voiceId: string;
  widgetId: string;
  campaignId: string;
  channelId: string | null;
  endpointId: string;
}

async function seedPages(stack: Stack, ws: BenchWorkspace, log: (line: string) => void): Promise<PageSeeds> {
  const api = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${ws.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${body === undefined ? "GET" : "POST"} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  const prompt = "You are the front desk of Acme Dental. Book, move and cancel appointments; answer questions about opening hours. ".repeat(
    8,
  );
  const agentIds: string[] = [];
  for (let i = 0; i < 5; i++) {
    const agent = await api<{ id: string }>("/v1/agents", {
      name: `Bench desk ${i + 1}`,
      personaId: randomUUID(),
      llmModel: "sandbox-chat",
      systemPrompt: prompt,
      firstMessage: "Hello, Acme Dental.",
      analysisPlan: { successCriteria: ["The caller got an appointment"] },
      tools: [
        {
          type: "function",
          name: "lookup_appointment",
          description: "Looks up the caller's appointment.",
          url: "https://tools.example.com/appointments",
          parameters: {
            type: "object",
            properties: {
              name: { type: "string", description: "The caller's name" },
              day: { type: "string", enum: ["today", "tomorrow"] },
            },
            required: ["name"],
          },
        },
        { type: "end_call" },
      ],
    });
    agentIds.push(agent.id);
  }
  const agentId = agentIds[0] as string;
  const test = await api<{ id: string }>(`/v1/agents/${agentId}/tests`, {
    name: "Echoes the question",
    scenario: { kind: "script", turns: ["Where is my order 7?"] },
    criteria: { successCriteria: ['The agent says "Where is my order 7"'], extractionFields: [] },
  });
  const started = await api<{ data: Array<{ id: string }> }>(`/v1/agents/${agentId}/tests/${test.id}/runs`, {});
  const testRunId = started.data[0]?.id ?? null;
  for (let i = 0; testRunId && i < 120; i++) {
    const run = await api<{ status: string }>(`/v1/agents/${agentId}/test-runs/${testRunId}`);
    if (["passed", "failed", "error"].includes(run.status)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const voice = await api<{ id: string }>("/v1/voices", {
    name: "Bench voice",
    provider: "openai",
    providerVoiceId: "alloy",
    language: "en-US",
  });
  const widget = await api<{ id: string }>("/v1/widgets", { name: "Bench widget", agentId, allowedOrigins: ["https://shop.example.com"] });
  const campaign = await api<{ id: string }>("/v1/campaigns", {
    name: "Bench reminders",
    agentId,
    fromNumbers: ["+15005550006"],
    recipients: Array.from({ length: 500 }, (_, i) => ({
      phoneNumber: `+1415${String(5_550_000 + i).padStart(7, "0")}`,
      variables: { n: String(i) },
    })),
  });
  let channelId: string | null = null;
  if (stack.telegram) {
    const bot = stack.telegram.createBot({ first_name: "Bench dashboard bot" });
    channelId = (
      await api<{ id: string }>("/v1/channels", { type: "telegram", name: "Bench bot", agentId, credentials: { botToken: bot.token } })
    ).id;
  }
  const endpoint = await api<{ id: string }>("/v1/webhook-endpoints", {
    name: "Bench endpoint",
    useTestReceiver: true,
    channels: ["voice"],
  });
  // Its delivery log, as emits and attempts leave it: a delivery and its one attempt per ended call event.
  const { db, pool } = createDb(stack.databaseUrl, stack.wsProxy, 2);
  try {
    const now = Date.now();
    const payload = JSON.stringify({
      event: "call.completed",
      call: { id: randomUUID(), transcript: CHAT_TURNS, cost: { credits: 0.05 } },
    });
    for (let done = 0; done < DELIVERIES; done += 500) {
      const rows = Array.from({ length: Math.min(500, DELIVERIES - done) }, (_, k) => {
        const at = now - (done + k) * 60_000;
        return {
          id: idAt(at),
          organizationId: ws.organizationId,
          endpointId: endpoint.id,
          eventId: randomUUID(),
          event: (done + k) % 3 === 0 ? "call.started" : "call.completed",
          subjectId: randomUUID(),
          payload,
          status: (done + k) % 10 === 0 ? ("failed" as const) : ("succeeded" as const),
          attemptCount: 1,
          lastStatusCode: (done + k) % 10 === 0 ? 500 : 200,
          createdAt: new Date(at),
          updatedAt: new Date(at),
        };
      });
      await db.insert(webhookDeliveries).values(rows);
      await db.insert(webhookAttempts).values(
        rows.map((r) => ({
          deliveryId: r.id,
          organizationId: r.organizationId,
          endpointId: r.endpointId,
          attempt: 1,
          target: "test_receiver",
          url: "https://receiver.example.com/",
          statusCode: r.lastStatusCode,
          durationMs: 40,
          responseBody: "ok",
          signedAt: Math.floor(r.createdAt.getTime() / 1000),
          trigger: "emit" as const,
          createdAt: r.createdAt,
        })),
      );
    }
    await db.execute(sql`analyze webhook_deliveries, webhook_attempts, agents, campaign_recipients`);
  } finally {
    await pool.end();
  }
  log(
    `  5 agents with tools, a test run, a voice, a widget, a 500-recipient campaign, a channel, an endpoint with ${DELIVERIES} deliveries`,
  );
  return { agentId, testRunId, voiceId: voice.id, widgetId: widget.id, campaignId: campaign.id, channelId, endpointId: endpoint.id };
}

async function timed(baseUrl: string, path: string, cookie: string): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(baseUrl + path, { headers: { cookie }, redirect: "manual", signal: AbortSignal.timeout(60_000) });
  const body = await res.text();
  return { ms: performance.now() - t0, status: res.status, body };
}

async function measurePage(baseUrl: string, label: string, path: string, cookie: string, runs: number): Promise<PageTiming> {
  for (let i = 0; i < 3; i++) await timed(baseUrl, path, cookie);
  const times: number[] = [];
  let status = 0;
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const r = await timed(baseUrl, path, cookie);
    times.push(r.ms);
    status = r.status;
    bytes = r.body.length;
  }
  return { label, path, status, p50: round(percentile(times, 50), 1), p95: round(percentile(times, 95), 1), bytes };
}

export async function runDashboardBench(
  stack: Stack,
  ws: BenchWorkspace,
  opts: { calls: number; chats: number; runs: number; log: (line: string) => void },
): Promise<DashboardBenchResult> {
  const { log } = opts;
  const failures: string[] = [];
  log(`Seeding ${opts.calls} calls and ${opts.chats} chats over 30 days…`);
  await seed(stack, ws, opts, log);
  log("Seeding what the other pages show, through the API…");
  const seeds = await seedPages(stack, ws, log);
  const signIn = await fetch(`${stack.baseUrl}/dashboard/api/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.baseUrl },
    body: JSON.stringify({ email: ws.email, password: ws.password }),
  });
  const cookie = /session=[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")?.[0];
  if (!cookie) throw new Error(`dashboard sign-in answered ${signIn.status} without a session cookie`);

  const first = await timed(stack.baseUrl, "/dashboard/calls", cookie);
  const knowledge = await timed(stack.baseUrl, "/dashboard/knowledge", cookie);
  const someBase = /href="\/dashboard\/knowledge\/([0-9a-f-]{36})"/.exec(knowledge.body)?.[1] ?? "";
  const someCall = /href="\/dashboard\/calls\/([0-9a-f-]{36})"/.exec(first.body)?.[1] ?? "";
  const someChat =
    /href="\/dashboard\/chats\/([0-9a-f-]{36})"/.exec((await timed(stack.baseUrl, "/dashboard/chats", cookie)).body)?.[1] ?? "";
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
  const agent = `/dashboard/agents/${seeds.agentId}`;
  // A page deep in the list: the cursor of a call in the middle (the cursor is the last id seen).
  const middle = idAt(Date.now() - 15 * DAY);
  const deep = btoa(JSON.stringify({ id: middle }))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  const pages: Array<[string, string]> = [
    ["Overview", "/dashboard"],
    ["Calls, first page", "/dashboard/calls"],
    ["Calls, a page 15 days back", `/dashboard/calls?cursor=${deep}`],
    [
      "Calls, completed in the last 7 days",
      `/dashboard/calls?status=completed&from=${new Date(Date.now() - 7 * DAY).toISOString().slice(0, 10)}`,
    ],
    ["Calls, search by number", "/dashboard/calls?search=2025554321"],
    ["A call (12 turns)", `/dashboard/calls/${someCall}`],
    ["Chats", "/dashboard/chats"],
    ["Chats, search by message text (every chat has it)", "/dashboard/chats?search=tuesday+afternoon"],
    ["Chats, search by message text (none has it)", "/dashboard/chats?search=zebra"],
    ["A chat (4 messages, its deliveries)", `/dashboard/chats/${someChat}`],
    ["Usage (30 days, per agent, calls by cost)", "/dashboard/usage"],
    ["Usage, 7 days", "/dashboard/usage?days=7"],
    ["Usage, 90 days", "/dashboard/usage?days=90"],
    ["Usage, chosen days (the last 14)", `/dashboard/usage?from=${day(13)}&to=${day(0)}`],
    ["Agents", "/dashboard/agents"],
    ["New agent (the provider's models)", "/dashboard/agents/new"],
    ["An agent (form, tools, versions, Try panel)", agent],
    ["An agent's tool opened in the builder", `${agent}?tool=lookup_appointment`],
    ["An agent's Tests", `${agent}/tests`],
    ...(seeds.testRunId ? ([["A test run", `${agent}/test-runs/${seeds.testRunId}`]] as Array<[string, string]>) : []),
    ["Voices", "/dashboard/voices"],
    ["New voice", "/dashboard/voices/new"],
    ["A voice", `/dashboard/voices/${seeds.voiceId}`],
    [`Knowledge (${KNOWLEDGE.bases} knowledge bases, ${KNOWLEDGE.bases * KNOWLEDGE.documents} documents)`, "/dashboard/knowledge"],
    [`A knowledge base (${KNOWLEDGE.documents} documents)`, `/dashboard/knowledge/${someBase}`],
    ["Phone Numbers", "/dashboard/phone-numbers"],
    ["Campaigns", "/dashboard/campaigns"],
    ["New campaign", "/dashboard/campaigns/new"],
    ["A campaign (500 recipients)", `/dashboard/campaigns/${seeds.campaignId}`],
    ["Widgets", "/dashboard/widgets"],
    ["New widget", "/dashboard/widgets/new"],
    ["A widget (live preview)", `/dashboard/widgets/${seeds.widgetId}`],
    ["Channels", "/dashboard/channels"],
    ["Connect a channel", "/dashboard/channels/new"],
    ...(seeds.channelId
      ? ([
          ["A channel", `/dashboard/channels/${seeds.channelId}`],
          ["A channel's removal page", `/dashboard/channels/${seeds.channelId}/remove`],
        ] as Array<[string, string]>)
      : []),
    ["Webhooks", "/dashboard/webhooks"],
    ["New webhook endpoint", "/dashboard/webhooks/new"],
    [`A webhook endpoint (${DELIVERIES.toLocaleString("en-US")} deliveries)`, `/dashboard/webhooks/${seeds.endpointId}`],
    ["A webhook endpoint, failed deliveries", `/dashboard/webhooks/${seeds.endpointId}?status=failed`],
    ["Members", "/dashboard/members"],
    ["API Keys", "/dashboard/api-keys"],
  ];
  log(`Pages, ${opts.runs} requests each after 3 to warm up, next to GET /health…`);
  const baseline = await measurePage(stack.baseUrl, "GET /health (baseline)", "/health", "", opts.runs);
  const timings: PageTiming[] = [];
  for (const [label, path] of pages) {
    const t = await measurePage(stack.baseUrl, label, path, cookie, opts.runs);
    log(`  ${label}: p50 ${t.p50} ms, p95 ${t.p95} ms (${t.status})`);
    if (t.status !== 200) failures.push(`${label} answered ${t.status}`);
    else if (t.p95 > PAGE_TARGET_MS) failures.push(`${label}: p95 ${t.p95} ms, over the ${PAGE_TARGET_MS} ms target`);
    timings.push(t);
  }

  log("Walking the calls list to its last page…");
  const ids = new Set<string>();
  let seen = 0;
  let walked = 0;
  const t0 = performance.now();
  let next: string | null = "/dashboard/calls";
  while (next) {
    const r = await timed(stack.baseUrl, next, cookie);
    if (r.status !== 200) {
      failures.push(`calls list page ${walked + 1} answered ${r.status}`);
      break;
    }
    for (const m of r.body.matchAll(/<a href="\/dashboard\/calls\/([0-9a-f-]{36})">/g)) {
      ids.add(m[1] as string);
      seen++;
    }
    walked++;
    next = /<a href="([^"]+)">Older calls<\/a>/.exec(r.body)?.[1]?.replace(/&amp;/g, "&") ?? null;
  }
  const walk = { pages: walked, seen, unique: ids.size, ms: round(performance.now() - t0, 0) };
  if (walk.unique !== opts.calls || walk.seen !== opts.calls)
    failures.push(`the list walk saw ${walk.seen} calls (${walk.unique} distinct) of ${opts.calls}`);

  log("CSV export of every call…");
  const csvAt = performance.now();
  const csv = await timed(stack.baseUrl, "/dashboard/calls/export.csv", cookie);
  const rows = csv.body.trimEnd().split("\r\n").length - 1;
  if (rows !== opts.calls) failures.push(`the CSV held ${rows} rows of ${opts.calls}`);
  return {
    calls: opts.calls,
    chats: opts.chats,
    runs: opts.runs,
    baseline,
    pages: timings,
    walk,
    csv: { rows, ms: round(performance.now() - csvAt, 0), bytes: csv.body.length },
    failures,
  };
}

export function dashboardLines(r: DashboardBenchResult): string[] {
  const rows = [r.baseline, ...r.pages].map((t) => [
    t.label,
    t.p50,
    t.p95,
    r.baseline.p50 > 0 ? `${round(t.p50 / r.baseline.p50, 1)}×` : "—",
    t === r.baseline ? "" : t.p95 <= PAGE_TARGET_MS ? "met" : "NOT MET",
    `${round(t.bytes / 1024, 1)} KB`,
  ]);
  return [
    `Dashboard pages with ${r.calls.toLocaleString("en-US")} calls and ${r.chats.toLocaleString("en-US")} chats in the workspace (${r.runs} requests each, one at a time; client time on localhost):`,
    "",
    table(["page", "p50 ms", "p95 ms", "p50 vs /health", `p95 ≤ ${PAGE_TARGET_MS} ms`, "size"], rows, new Set([1, 2, 3])),
    "",
    `Calls list walked to its end: ${r.walk.pages} pages, ${r.walk.seen.toLocaleString("en-US")} calls seen, ${r.walk.unique.toLocaleString("en-US")} distinct, ${r.walk.ms} ms in all (${round(r.walk.ms / Math.max(1, r.walk.pages), 1)} ms a page).`,
    `CSV export of every call: ${r.csv.rows.toLocaleString("en-US")} rows, ${round(r.csv.bytes / 1024 / 1024, 2)} MB in ${r.csv.ms} ms.`,
    ...(r.failures.length ? [`FAILED: ${r.failures.join("; ")}`] : []),
  ];
}
