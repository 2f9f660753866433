// The issue's targets, judged on one run's figures: met, not met, or not measured (a part or a
// concurrency level that did not run). They are for the report: a missed target does not change
// the exit status, a failed request does.
import { type CallsBenchResult, goalRows } from "./calls";
import type { CostsResult } from "./costs";
import { type MessagingBenchResult, roundFailed } from "./messaging";
import { type ModelsBenchResult, STEADY_CHAT_ROUTE } from "./models";
import type { Row } from "./report";
import type { WebhookBenchResult } from "./webhooks";

export type Status = "met" | "not met" | "not measured";

export interface Verdict {
  target: string;
  status: Status;
  /** The figures the verdict rests on. */
  figures: string;
}

export const TARGETS = {
  /** req/s of the route ÷ /health's, at each of these connections. */
  rpsRatio: { "GET /v1/me": 0.5, "GET /v1/agents": 0.35 } as Record<string, number>,
  connections: [1, 10, 50],
  /** p99 of the route ÷ /health's at this concurrency. */
  p99Ratio: 3,
  p99Connections: 50,
  /** /v1/llm/chat p50 − the sandbox's p50, in ms, at each of these connections. */
  chatP50Ms: 10,
  chatConnections: [1, 10],
  /** Webhook fan-out deliveries/s ÷ a bare fetch loop's requests/s. */
  webhookRatio: 0.6,
  /** Issue 14: conversations at once with 0 lost or duplicated replies. */
  messagingConversations: 50,
};

const x = (n: number) => `${n.toFixed(2)}×`;
const num = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export function judge(input: {
  rows: Row[];
  costs?: CostsResult;
  models?: ModelsBenchResult;
  webhooks?: WebhookBenchResult;
  messaging?: MessagingBenchResult;
  calls?: CallsBenchResult;
}): Verdict[] {
  const out: Verdict[] = [];
  const { rows } = input;
  const find = (label: string, connections: number) => rows.find((r) => r.label === label && r.connections === connections);

  for (const [label, min] of Object.entries(TARGETS.rpsRatio)) {
    for (const connections of TARGETS.connections) {
      const target = `${label} req/s ≥ ${min}× GET /health's at ${connections} connection${connections === 1 ? "" : "s"}`;
      const r = find(label, connections);
      const base = find("GET /health", connections);
      if (!r || !base || r.rpsRatio === null) {
        out.push({ target, status: "not measured", figures: "—" });
        continue;
      }
      out.push({
        target,
        status: r.rpsRatio >= min ? "met" : "not met",
        figures: `${x(r.rpsRatio)} (${num(r.rps)} vs ${num(base.rps)} req/s)`,
      });
    }
  }
  for (const label of Object.keys(TARGETS.rpsRatio)) {
    const c = TARGETS.p99Connections;
    const target = `${label} p99 ≤ ${TARGETS.p99Ratio}× GET /health's at ${c} connections`;
    const r = find(label, c);
    const base = find("GET /health", c);
    if (!r || !base || base.p99 <= 0) {
      out.push({ target, status: "not measured", figures: "—" });
      continue;
    }
    const ratio = r.p99 / base.p99;
    out.push({
      target,
      status: ratio <= TARGETS.p99Ratio ? "met" : "not met",
      figures: `${x(ratio)} (${num(r.p99)} vs ${num(base.p99)} ms)`,
    });
  }
  if (rows.length > 0) {
    const non2xx = rows.reduce((n, r) => n + r.non2xx, 0);
    const errors = rows.reduce((n, r) => n + r.errors, 0);
    const total = rows.reduce((n, r) => n + r.total, 0);
    out.push({
      target: "0 non-2xx and 0 errors in the route cases",
      status: non2xx === 0 && errors === 0 && rows.every((r) => r.total > 0) ? "met" : "not met",
      figures: `${non2xx} non-2xx, ${errors} errors in ${total} responses`,
    });
  } else out.push({ target: "0 non-2xx and 0 errors in the route cases", status: "not measured", figures: "—" });

  for (const [route, provider] of [
    ["POST /v1/llm/chat", "the provider sandbox"],
    [STEADY_CHAT_ROUTE, "the sandbox with a hosted provider's timings (steady profile)"],
  ] as const)
    for (const connections of TARGETS.chatConnections) {
      const target = `POST /v1/llm/chat p50 within ${TARGETS.chatP50Ms} ms of ${provider} called directly, ${connections} connection${connections === 1 ? "" : "s"}`;
      const o = input.models?.overhead.find((m) => m.route === route && m.connections === connections);
      if (!o) {
        out.push({ target, status: "not measured", figures: "—" });
        continue;
      }
      out.push({
        target,
        status: o.p50Ms <= TARGETS.chatP50Ms ? "met" : "not met",
        figures:
          `${o.p50Ms >= 0 ? "+" : "−"}${Math.abs(o.p50Ms).toFixed(2)} ms (${num(o.oursP50)} vs ${num(o.directP50)} ms)` +
          (o.floorP50 === undefined
            ? ""
            : `; a bare worker route forwarding to it: +${(o.floorP50 - o.directP50).toFixed(2)} ms, ours over that: ${o.oursP50 - o.floorP50 >= 0 ? "+" : "−"}${Math.abs(o.oursP50 - o.floorP50).toFixed(2)} ms`),
      });
    }

  const wh = input.webhooks;
  out.push(
    wh
      ? {
          target: `webhook fan-out (1 emit → ${wh.endpoints} endpoints, direct mode) ≥ ${TARGETS.webhookRatio}× a bare fetch loop, in a worker, loopback receiver`,
          status: wh.inWorker.ratio >= TARGETS.webhookRatio && wh.failed === 0 ? "met" : "not met",
          figures:
            `${x(wh.inWorker.ratio)} (${wh.inWorker.emitDeliveriesPerSecond.toFixed(0)} deliveries/s vs ${wh.inWorker.bareFetchPerSecond.toFixed(0)} requests/s${wh.failed ? `, ${wh.failed} failed` : ""}); ` +
            `receiver answering after ${wh.inWorker.slowReceiver.delayMs} ms: ${x(wh.inWorker.slowReceiver.ratio)}; emit() in Node: ${x(wh.ratio)}`,
        }
      : { target: `webhook fan-out ≥ ${TARGETS.webhookRatio}× a bare fetch loop`, status: "not measured", figures: "—" },
  );

  const cost = (label: string) => input.costs?.rows.find((r) => r.label === label);
  const health = cost("GET /health");
  out.push(
    health
      ? {
          target: "GET /health: 0 Postgres connections, 0 SQL-over-HTTP requests, 0 Redis requests per 1,000",
          status: health.websockets === 0 && health.sqlHttpRequests === 0 && health.redisRequests === 0 ? "met" : "not met",
          figures: perThousand(health),
        }
      : { target: "GET /health: nothing per 1,000 requests", status: "not measured", figures: "—" },
  );
  const me = cost("GET /v1/me");
  const counted = input.costs?.sqlHttpCounted ?? false;
  out.push(
    me
      ? {
          target: "GET /v1/me, steady state: 0 Postgres (WebSocket or HTTP), 1,000 Redis requests per 1,000",
          status:
            me.websockets === 0 && me.sqlHttpRequests === 0 && me.perThousand.redis === 1000 && counted && me.failed === 0
              ? "met"
              : "not met",
          figures: perThousand(me) + (counted ? "" : " (SQL over HTTP not counted: no endpoint)"),
        }
      : { target: "GET /v1/me, steady state: 0 Postgres, 1,000 Redis per 1,000", status: "not measured", figures: "—" },
  );

  // Issue 14: each round of conversations at once, judged on its own.
  const rounds = input.messaging?.concurrency ?? [];
  const wanted = TARGETS.messagingConversations;
  if (rounds.length === 0)
    out.push({
      target: `messaging: ${wanted} conversations at once, 0 lost and 0 duplicated replies`,
      status: "not measured",
      figures: "—",
    });
  for (const r of rounds) {
    const problems = [
      r.outOfOrder && `${r.outOfOrder} out of order`,
      r.reorderedByRetry && `${r.reorderedByRetry} reordered by a provider retry`,
      r.strayReplies && `${r.strayReplies} stray`,
      r.transcriptMismatches && `${r.transcriptMismatches} transcripts off`,
      r.inboundLeft && `${r.inboundLeft} inbound left`,
    ].filter(Boolean);
    out.push({
      target: `messaging: ${r.label} at once, 0 lost and 0 duplicated replies, in order, transcripts matching`,
      status: r.users >= wanted && !roundFailed(r) ? "met" : r.users < wanted ? "not measured" : "not met",
      figures:
        `${r.lost} lost, ${r.duplicated} duplicated of ${r.messages} messages${problems.length ? ` (${problems.join(", ")})` : ""}, ${r.seconds} s` +
        (r.users < wanted ? ` (${r.users} conversations, not ${wanted})` : ""),
    });
  }

  // The voice issue: latency on the realistic and fast profiles, the platform's share, 32 calls,
  // barge-in, and the cost of a call-minute (bench/calls.ts measures; goalRows judges).
  if (input.calls)
    for (const g of goalRows(input.calls))
      out.push({ target: `calls: ${g.goal}`, status: g.met === null ? "not measured" : g.met ? "met" : "not met", figures: g.value });
  else out.push({ target: "calls: voice-to-voice, barge-in and cost goals", status: "not measured", figures: "—" });
  return out;
}

/** For reference next to the verdicts: inbound message → reply against the bare LLM call (issue 14 sets no figure). */
export function messagingLine(result: MessagingBenchResult | undefined): string | null {
  const instant = result?.latency.filter((l) => l.providerDelayMs === 0) ?? [];
  if (instant.length === 0) return null;
  const at = instant
    .map(
      (l) => `${l.channel} p50 ${num(l.reply.p50)} / p95 ${num(l.reply.p95)} ms (bare LLM call ${num(l.bare.p50)} / ${num(l.bare.p95)} ms)`,
    )
    .join("; ");
  return `  reference: messaging, webhook POST → reply at the sandbox, instant provider sandbox: ${at}`;
}

const perThousand = (r: CostsResult["rows"][number]) =>
  `${r.perThousand.websockets} WebSocket, ${r.perThousand.sqlHttp} SQL over HTTP, ${r.perThousand.redis} Redis per 1,000 (${r.requests} requests)`;

/** The bench-only routes that make one bare subrequest, and two one after the other: the floors of routes with one and two round trips. */
export const FLOOR_LABEL = "floor: 1 subrequest";
export const FLOOR2_LABEL = "floor: 2 subrequests";

/** For reference next to the verdicts: what the floors reach against /health, at each concurrency. */
export function floorLine(rows: Row[]): string | null {
  const at = (label: string) =>
    rows
      .filter((r) => r.label === label && r.rpsRatio !== null)
      .map((r) => `${x(r.rpsRatio as number)} at ${r.connections}`)
      .join(", ");
  const one = at(FLOOR_LABEL);
  const two = at(FLOOR2_LABEL);
  if (!one && !two) return null;
  return (
    `  reference: of GET /health's req/s, one bare subrequest (${FLOOR_LABEL}) reaches ${one || "—"}; two one after the other (Redis, then SQL over HTTP: ${FLOOR2_LABEL}) ${two || "—"}` +
    " (routes with one or two round trips can hardly do better on this machine)"
  );
}

export function verdictLines(verdicts: Verdict[]): string {
  const width = Math.max(...verdicts.map((v) => v.target.length));
  return verdicts.map((v) => `  ${v.status.padEnd(12)} ${v.target.padEnd(width)}  ${v.figures}`).join("\n");
}
