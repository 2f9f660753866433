import type { OpenAPIHono } from "@hono/zod-openapi";
import { type CallSummary, listCallSummaries } from "../../../calls/service";
import { durationOf } from "../../../calls/views";
import type { AppEnv } from "../../../context";
import { toCredits } from "../../../lib/credits";
import { filtersOf, filterValuesOf } from "./shared";

/** Rows read per query while the file streams. */
const BATCH = 1_000;
/** The most rows one export holds (a header line says so when there were more). */
export const EXPORT_MAX_ROWS = 100_000;

const HEADER = [
  "id",
  "created_at",
  "agent_id",
  "agent_name",
  "type",
  "direction",
  "from",
  "to",
  "status",
  "ended_reason",
  "duration_seconds",
  "cost_credits",
  "success_score",
  "sentiment",
];

/** One CSV field (RFC 4180); a text that a spreadsheet would run as a formula is prefixed with '. */
function field(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !/^\+\d+$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const line = (call: CallSummary) =>
  [
    call.id,
    call.createdAt.toISOString(),
    call.agentId,
    call.agentName,
    call.type,
    call.direction,
    call.fromNumber,
    call.toNumber,
    call.status,
    call.endedReason,
    durationOf(call),
    toCredits(call.costMicro),
    call.successScore,
    call.sentiment,
  ]
    .map(field)
    .join(",");

/**
 * GET /dashboard/calls/export.csv: every call the list's filters find (not only the page shown),
 * newest first, streamed in batches; at most EXPORT_MAX_ROWS rows.
 */
export const registerExportCallsPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/export.csv", (c) => {
    const filters = filtersOf(filterValuesOf(c));
    const { ctx } = c.var;
    const encoder = new TextEncoder();
    let cursor: string | undefined;
    let written = 0;
    let started = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(out) {
        if (!started) {
          started = true;
          out.enqueue(encoder.encode(`${HEADER.join(",")}\r\n`));
        }
        const page = await listCallSummaries({ ctx, input: { limit: Math.min(BATCH, EXPORT_MAX_ROWS - written), cursor, ...filters } });
        if (page.data.length > 0) out.enqueue(encoder.encode(page.data.map((call) => `${line(call)}\r\n`).join("")));
        written += page.data.length;
        cursor = page.nextCursor ?? undefined;
        if (!cursor || written >= EXPORT_MAX_ROWS) out.close();
      },
    });
    const day = new Date().toISOString().slice(0, 10);
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="calls-${day}.csv"`,
    });
  });
