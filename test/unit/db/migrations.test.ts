// The committed migrations carry data, not only shape. 0018 moves widget chats and messaging
// conversations into the one `chats` table: every row is copied with its id (the usage log's
// chat_id and the webhooks' subject ids still find it), its channel and its transcript, and the
// old tables are gone. 0019 fills calls.voice_to_voice_ms of the calls that had ended from their
// transcripts. 0021 keeps each webhook delivery's body as text: the payloads already written keep
// their content, in jsonb's rendering. 0023 adds up the usage log written so far into its daily
// totals, exactly as GET /v1/usage summed the log before. Applied to an in-memory PGlite with
// drizzle's own reader of drizzle/.
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { histogramOf } from "../../../src/calls/queries/stats";
import { NO_AGENT_ID } from "../../../src/db/schema";

const folder = fileURLToPath(new URL("../../../drizzle", import.meta.url));
const migrations = readMigrationFiles({ migrationsFolder: folder });
const CHATS = migrations.findIndex((m) => m.sql.some((s) => s.includes('CREATE TABLE "chats"')));

const ORG = "0193b6e2-0000-7000-8000-000000000001";
const AGENT = "0193b6e2-0000-7000-8000-000000000002";
const WIDGET = "0193b6e2-0000-7000-8000-000000000003";
const CHANNEL = "0193b6e2-0000-7000-8000-000000000004";
const WIDGET_CHAT = "0193b6e2-0000-7000-8000-000000000010";
const CONVERSATION = "0193b6e2-0000-7000-8000-000000000011";
const ORPHAN = "0193b6e2-0000-7000-8000-000000000012";

/** As drizzle's migrator applies pending migrations: all of them in one transaction. */
const applyTo = (db: PGlite, from: number, to: number) =>
  db.transaction(async (tx) => {
    for (const m of migrations.slice(from, to)) for (const statement of m.sql) if (statement.trim()) await tx.exec(statement);
  });

/** Inserts a row, with a placeholder for each required column the test does not care about. */
const insertInto = async (db: PGlite, table: string, values: Record<string, string | number | null>) => {
  const { rows } = await db.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
     WHERE table_name = $1 AND is_nullable = 'NO' AND column_default IS NULL`,
    [table],
  );
  const filler: Record<string, string | number> = {
    uuid: ORG,
    jsonb: "{}",
    integer: 0,
    bigint: 0,
    real: 0,
    "double precision": 0,
    boolean: "false",
    "timestamp with time zone": "2026-01-01T00:00:00Z",
  };
  const row: Record<string, string | number | null> = {};
  for (const c of rows) row[c.column_name] = filler[c.data_type] ?? "x";
  Object.assign(row, values);
  const names = Object.keys(row);
  await db.query(
    `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
    names.map((n) => row[n]),
  );
};

describe("migration 0018: one chats table", () => {
  let db: PGlite;
  const apply = (from: number, to: number) => applyTo(db, from, to);
  const insert = (table: string, values: Record<string, string | number | null>) => insertInto(db, table, values);
  beforeAll(async () => {
    db = await PGlite.create("memory://");
    expect(CHATS).toBeGreaterThan(0);
    await apply(0, CHATS);
    await insert("organizations", { id: ORG, name: "Acme" });
    await insert("agents", { id: AGENT, organization_id: ORG, name: "Desk" });
    await insert("widgets", { id: WIDGET, organization_id: ORG, agent_id: AGENT, allowed_origins: '["https://shop.example"]' });
    await insert("messaging_channels", { id: CHANNEL, organization_id: ORG, agent_id: AGENT, type: "telegram" });
    await insert("widget_sessions", {
      id: WIDGET_CHAT,
      organization_id: ORG,
      widget_id: WIDGET,
      agent_id: AGENT,
      agent_name: "Desk",
      visitor_id: "v_1",
      origin: "https://shop.example",
      status: "completed",
      ended_reason: "visitor-ended",
      transcript: '[{"role":"user","text":"Hi","at":"2026-01-01T00:00:00.000Z"}]',
      message_count: 1,
      ended_at: "2026-01-01T00:05:00Z",
    });
    await insert("messaging_sessions", {
      id: CONVERSATION,
      organization_id: ORG,
      channel_id: CHANNEL,
      channel_type: "telegram",
      agent_id: AGENT,
      agent_name: "Desk",
      end_user_id: "777",
      end_user_name: "Ada",
      status: "in-progress",
      transcript:
        '[{"role":"user","text":"Hola","at":"2026-01-01T00:00:00.000Z","kind":"voice"},{"role":"tool","text":"t","at":"2026-01-01T00:00:01.000Z"}]',
      message_count: 2,
      tool_call_count: 1,
    });
    await insert("messaging_sessions", {
      id: ORPHAN,
      organization_id: ORG,
      channel_id: null,
      channel_type: "whatsapp",
      agent_id: null,
      agent_name: "Gone",
      end_user_id: "4915",
      status: "in-progress",
    });
    await apply(CHATS, CHATS + 1);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it("copies every widget chat and conversation with its id, channel and transcript", async () => {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT id, channel, widget_id, channel_id, agent_id, agent_name, end_user_id, end_user_name, origin, status, ended_reason,
              transcript, message_count, tool_call_count, ended_at IS NOT NULL AS ended FROM chats ORDER BY id`,
    );
    expect(rows).toEqual([
      {
        id: WIDGET_CHAT,
        channel: "widget",
        widget_id: WIDGET,
        channel_id: null,
        agent_id: AGENT,
        agent_name: "Desk",
        end_user_id: "v_1",
        end_user_name: null,
        origin: "https://shop.example",
        status: "completed",
        ended_reason: "visitor-ended",
        transcript: [{ role: "user", text: "Hi", at: "2026-01-01T00:00:00.000Z" }],
        message_count: 1,
        tool_call_count: 0,
        ended: true,
      },
      {
        id: CONVERSATION,
        channel: "telegram",
        widget_id: null,
        channel_id: CHANNEL,
        agent_id: AGENT,
        agent_name: "Desk",
        end_user_id: "777",
        end_user_name: "Ada",
        origin: null,
        status: "in-progress",
        ended_reason: null,
        transcript: [
          { role: "user", text: "Hola", at: "2026-01-01T00:00:00.000Z", kind: "voice" },
          { role: "tool", text: "t", at: "2026-01-01T00:00:01.000Z" },
        ],
        message_count: 2,
        tool_call_count: 1,
        ended: false,
      },
      expect.objectContaining({ id: ORPHAN, channel: "whatsapp", channel_id: null, agent_id: null, status: "in-progress" }),
    ]);
  });

  it("drops the old tables, and the copied rows keep the new table's rules", async () => {
    const { rows } = await db.query<{ name: string | null }>(
      `SELECT to_regclass('widget_sessions')::text AS name UNION ALL SELECT to_regclass('messaging_sessions')::text`,
    );
    expect(rows).toEqual([{ name: null }, { name: null }]);
    // The copied open conversation holds the end user's one open slot on the channel.
    await expect(
      db.exec(
        `INSERT INTO chats (id, organization_id, channel, channel_id, agent_name, end_user_id, status)
         VALUES ('0193b6e2-0000-7000-8000-000000000099', '${ORG}', 'telegram', '${CHANNEL}', 'Desk', '777', 'in-progress')`,
      ),
    ).rejects.toThrow(/chats_open_conversation_idx/);
    // Deleting the widget keeps its chat, without the widget.
    await db.exec(`DELETE FROM widgets WHERE id = '${WIDGET}'`);
    const { rows: kept } = await db.query<{ widget_id: string | null }>(`SELECT widget_id FROM chats WHERE id = '${WIDGET_CHAT}'`);
    expect(kept).toEqual([{ widget_id: null }]);
  });
});

describe("migrations 0019 and 0020: the latencies and daily figures of the calls that had ended", () => {
  const LATENCIES = migrations.findIndex((m) => m.sql.some((s) => s.includes('ADD COLUMN "voice_to_voice_ms"')));
  const ENDED = "0193b6e2-0000-7000-8000-000000000020";
  const SILENT = "0193b6e2-0000-7000-8000-000000000021";
  const LIVE = "0193b6e2-0000-7000-8000-000000000022";

  it("takes each measured reply's voice-to-voice time, in order; a call without one gets none; a live call waits for its end", async () => {
    const db = await PGlite.create("memory://");
    expect(LATENCIES).toBeGreaterThan(CHATS);
    await applyTo(db, 0, LATENCIES);
    await insertInto(db, "organizations", { id: ORG, name: "Acme" });
    const turn = (role: string, latency?: number) => ({
      role,
      text: "x",
      startMs: 0,
      endMs: 1,
      ...(latency === undefined ? {} : { latency: { voiceToVoiceMs: latency, sttMs: 1, llmMs: 1, ttsMs: 1, platformMs: 1 } }),
    });
    const call = (id: string, ended: boolean, transcript: unknown[]) =>
      insertInto(db, "calls", {
        id,
        organization_id: ORG,
        agent_name: "Desk",
        type: "web",
        direction: "outbound",
        status: ended ? "completed" : "in-progress",
        transcript: JSON.stringify(transcript),
        ended_at: ended ? "2026-01-01T00:05:00Z" : null,
      });
    await call(ENDED, true, [turn("agent"), turn("user"), turn("agent", 812.6), turn("user"), turn("agent", 640)]);
    await call(SILENT, true, [turn("agent")]);
    await call(LIVE, false, [turn("user"), turn("agent", 700)]);
    await applyTo(db, LATENCIES, LATENCIES + 1);
    const { rows } = await db.query<{ id: string; voice_to_voice_ms: number[] | null }>(
      "SELECT id, voice_to_voice_ms FROM calls ORDER BY id",
    );
    expect(rows).toEqual([
      { id: ENDED, voice_to_voice_ms: [813, 640] },
      { id: SILENT, voice_to_voice_ms: [] },
      { id: LIVE, voice_to_voice_ms: null },
    ]);

    // 0020: the daily figures of the calls that had ended, their latencies in the buckets of stats.ts.
    await applyTo(db, LATENCIES + 1, LATENCIES + 2);
    const stats = await db.query<{ agent_id: string; agent_name: string; calls: number; replies: number; latency_histogram: number[] }>(
      "SELECT agent_id, agent_name, calls, replies, latency_histogram FROM call_daily_stats",
    );
    expect(stats.rows).toHaveLength(1);
    const [row] = stats.rows;
    expect(row).toMatchObject({ agent_id: NO_AGENT_ID, agent_name: "Desk", calls: 2, replies: 2 });
    expect(row?.latency_histogram).toEqual(histogramOf([813, 640]));
    await db.close();
  }, 60_000);
});

describe("migration 0021: a delivery's body as text", () => {
  const BODY_TEXT = migrations.findIndex((m) => m.sql.some((s) => s.includes('ALTER COLUMN "payload" SET DATA TYPE text')));
  const ENDPOINT = "0193b6e2-0000-7000-8000-000000000030";
  const DELIVERY = "0193b6e2-0000-7000-8000-000000000031";

  it("keeps what each delivery held, as the text later attempts send; new bodies are kept byte for byte", async () => {
    const db = await PGlite.create("memory://");
    expect(BODY_TEXT).toBeGreaterThan(CHATS);
    await applyTo(db, 0, BODY_TEXT);
    await insertInto(db, "organizations", { id: ORG, name: "Acme" });
    await insertInto(db, "webhook_endpoints", { id: ENDPOINT, organization_id: ORG, channels: "[]", events: "[]" });
    const payload = { deliveryId: DELIVERY, event: "call.completed", channel: "voice", call: { id: "c1", agentName: "Désk ✓" } };
    await insertInto(db, "webhook_deliveries", {
      id: DELIVERY,
      organization_id: ORG,
      endpoint_id: ENDPOINT,
      event: "call.completed",
      payload: JSON.stringify(payload),
    });
    await applyTo(db, BODY_TEXT, BODY_TEXT + 1);
    const column = await db.query<{ data_type: string }>(
      "SELECT data_type FROM information_schema.columns WHERE table_name = 'webhook_deliveries' AND column_name = 'payload'",
    );
    expect(column.rows).toEqual([{ data_type: "text" }]);
    const { rows } = await db.query<{ payload: string }>("SELECT payload FROM webhook_deliveries");
    expect(typeof rows[0]?.payload).toBe("string");
    expect(JSON.parse(rows[0]?.payload ?? "")).toEqual(payload);

    // From now on the column holds the text as given: key order and spacing stay.
    const body = '{"deliveryId":"x","event":"call.completed",  "z":1,"a":"é"}';
    await db.query("UPDATE webhook_deliveries SET payload = $1", [body]);
    expect((await db.query<{ payload: string }>("SELECT payload FROM webhook_deliveries")).rows[0]?.payload).toBe(body);
    await db.close();
  }, 60_000);
});

describe("migration 0023: the usage log's daily totals", () => {
  const USAGE_DAILY = migrations.findIndex((m) => m.sql.some((s) => s.includes('CREATE TABLE "usage_daily_stats"')));
  const OTHER = "0193b6e2-0000-7000-8000-000000000040";
  /** GET /v1/usage's totals as they were summed from the log before 0023. */
  const SUMMED = `SELECT organization_id, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, modality, unit,
      count(*)::int AS requests, (count(*) FILTER (WHERE status < 400))::int AS succeeded,
      coalesce(sum(quantity), 0)::bigint::text AS quantity, coalesce(sum(cost_micro), 0)::bigint::text AS cost_micro
    FROM usage_events GROUP BY organization_id, (created_at AT TIME ZONE 'UTC')::date, modality, unit`;
  const ROLLED = `SELECT organization_id, to_char(day, 'YYYY-MM-DD') AS day, modality, unit, requests, succeeded,
      quantity::text AS quantity, cost_micro::text AS cost_micro FROM usage_daily_stats`;
  const ORDER = " ORDER BY 1, 2, 3, 4";

  it("adds up every use so far per workspace, UTC day, modality and unit, failures as requests that cost nothing", async () => {
    const db = await PGlite.create("memory://");
    expect(USAGE_DAILY).toBeGreaterThan(CHATS);
    await applyTo(db, 0, USAGE_DAILY);
    await insertInto(db, "organizations", { id: ORG, name: "Acme" });
    await insertInto(db, "organizations", { id: OTHER, name: "Other" });
    let n = 0;
    const use = (org: string, at: string, modality: string, unit: string, status: number, quantity: number, cost: number) =>
      insertInto(db, "usage_events", {
        id: `0193b6e2-0000-7000-8000-${String(100 + n++).padStart(12, "0")}`,
        organization_id: org,
        modality,
        unit,
        status,
        quantity,
        cost_micro: cost,
        created_at: at,
      });
    // The last millisecond of a UTC day and the first of the next (in a session that is not in UTC).
    await db.exec("SET TIME ZONE 'America/Los_Angeles'");
    await use(ORG, "2026-01-01T23:59:59.999Z", "chat", "tokens", 200, 1_500_000_000, 900);
    await use(ORG, "2026-01-01T08:00:00Z", "chat", "tokens", 200, 1_500_000_000, 5_000_000_000); // the sums outgrow an integer
    await use(ORG, "2026-01-01T09:00:00Z", "chat", "tokens", 402, 0, 0);
    await use(ORG, "2026-01-01T10:00:00Z", "chat", "tokens", 502, 0, 0);
    await use(ORG, "2026-01-02T00:00:00Z", "chat", "tokens", 200, 80, 600);
    await use(ORG, "2026-01-02T00:00:01Z", "tts", "characters", 200, 40, 1_200);
    await use(ORG, "2026-01-02T00:00:02Z", "stt", "audio_ms", 429, 0, 0);
    await use(OTHER, "2026-01-01T12:00:00Z", "chat", "tokens", 200, 7, 7);
    const before = (await db.query(SUMMED + ORDER)).rows;

    await applyTo(db, USAGE_DAILY, USAGE_DAILY + 1);
    const rolled = (await db.query(ROLLED + ORDER)).rows;
    expect(rolled).toEqual(before);
    expect(rolled).toEqual([
      {
        organization_id: ORG,
        day: "2026-01-01",
        modality: "chat",
        unit: "tokens",
        requests: 4,
        succeeded: 2,
        quantity: "3000000000",
        cost_micro: "5000000900",
      },
      {
        organization_id: ORG,
        day: "2026-01-02",
        modality: "chat",
        unit: "tokens",
        requests: 1,
        succeeded: 1,
        quantity: "80",
        cost_micro: "600",
      },
      {
        organization_id: ORG,
        day: "2026-01-02",
        modality: "stt",
        unit: "audio_ms",
        requests: 1,
        succeeded: 0,
        quantity: "0",
        cost_micro: "0",
      },
      {
        organization_id: ORG,
        day: "2026-01-02",
        modality: "tts",
        unit: "characters",
        requests: 1,
        succeeded: 1,
        quantity: "40",
        cost_micro: "1200",
      },
      {
        organization_id: OTHER,
        day: "2026-01-01",
        modality: "chat",
        unit: "tokens",
        requests: 1,
        succeeded: 1,
        quantity: "7",
        cost_micro: "7",
      },
    ]);
    // A workspace removed takes its totals with it.
    await db.exec(`DELETE FROM organizations WHERE id = '${OTHER}'`);
    expect((await db.query(`SELECT 1 FROM usage_daily_stats WHERE organization_id = '${OTHER}'`)).rows).toEqual([]);
    await db.close();
  }, 60_000);

  it("fills nothing from an empty log", async () => {
    const db = await PGlite.create("memory://");
    await applyTo(db, 0, USAGE_DAILY + 1);
    expect((await db.query("SELECT count(*)::int AS n FROM usage_daily_stats")).rows).toEqual([{ n: 0 }]);
    await db.close();
  }, 60_000);
});
