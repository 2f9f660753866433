// The webhook payload (spec: "Webhook payload") and the `custom` payload mode's leaf paths.
//
// Leaf path syntax: dot-separated object keys from the payload's root, e.g. `call.id`,
// `transcript.fullText`, `analysis.topics`, `report.extractedData`. Arrays and
// `report.extractedData` / `metadata` / `call.transfer`, a campaign's `counts`, `schedule`,
// `retry` and `metadata`, and a test run's `transcript`, `results`, `toolsCalled` and `latency`
// are leaves (no indexing into them).
// Unknown paths are refused when the endpoint is saved. The envelope (`deliveryId`, `event`,
// `timestamp`) is always sent so a receiver can verify, route and de-duplicate.

import type { ToolOutcome } from "../db/schema/tools";
import { isCampaignEvent, isTestRunEvent } from "./events";
import { CALL_FIELDS, CAMPAIGN_FIELDS, CHAT_FIELDS, TEST_RUN_FIELDS } from "./payload-fields";
import type { CallPayload, CallTranscript, CampaignPayload, ChatPayload, ChatTranscript, TestRunPayload } from "./payload-schema";

// The shapes are zod schemas (payload-schema.ts, imported for types only: the dashboard's
// browser bundle takes shapePayload from this file without zod).
export type { CallPayload, CampaignPayload, ChatPayload, TestRunPayload };

export interface EventData {
  call?: Partial<CallPayload> & { id: string };
  chat?: Partial<ChatPayload> & { id: string };
  /** campaign.* events: the campaign with its recipients' counts (src/campaigns/views.ts campaignEventData). */
  campaign?: CampaignPayload;
  /** test_run.* events: the run as the API shows it (src/agent-tests/views.ts testRunEventData). */
  testRun?: TestRunPayload;
  transcript?: CallTranscript | ChatTranscript | null;
  recording?: { url: string; durationSeconds: number | string } | null;
  analysis?: { summary: string; sentiment: string; topics: string[]; actionItems: string[] } | null;
  report?: {
    successScore: number;
    criteriaResults: Array<{ criterion: string; passed: boolean }>;
    extractedData: Record<string, unknown>;
  } | null;
  metadata?: Record<string, unknown> | null;
}

export const ENVELOPE_PATHS = ["deliveryId", "event", "timestamp"] as const;

/** Every leaf path a `custom` endpoint may select. */
export const LEAF_PATHS: readonly string[] = [
  "channel",
  ...CALL_FIELDS.map((f) => `call.${f}`),
  ...CHAT_FIELDS.map((f) => `chat.${f}`),
  ...CAMPAIGN_FIELDS.map((f) => `campaign.${f}`),
  ...TEST_RUN_FIELDS.map((f) => `testRun.${f}`),
  "transcript.fullText",
  "transcript.turns",
  "recording.url",
  "recording.durationSeconds",
  "analysis.summary",
  "analysis.sentiment",
  "analysis.topics",
  "analysis.actionItems",
  "report.successScore",
  "report.criteriaResults",
  "report.extractedData",
  "metadata",
];

/** A chat's turns as the payload's transcript: `fullText` ("User: …" / "Agent: …" lines) and the turns (`kind` when not text). */
export function chatTranscript(
  turns: ReadonlyArray<{
    role: "agent" | "user" | "tool";
    text: string;
    kind?: "text" | "voice" | "unsupported";
    tool?: { name: string; outcome: ToolOutcome; latencyMs: number; statusCode: number | null };
  }>,
): ChatTranscript {
  return {
    fullText: turns.map((t) => `${SPEAKERS[t.role]}: ${t.text}`).join("\n"),
    turns: turns.map((t) => ({
      role: t.role,
      text: t.text,
      ...(t.kind && t.kind !== "text" ? { kind: t.kind } : {}),
      ...(t.tool
        ? { tool: { name: t.tool.name, outcome: t.tool.outcome, latencyMs: t.tool.latencyMs, statusCode: t.tool.statusCode } }
        : {}),
    })),
  };
}

/** Who a transcript line is from; tool turns (docs/tools.md) are `Tool: <name>: ok (120 ms)`. */
const SPEAKERS = { agent: "Agent", user: "User", tool: "Tool" } as const;

export type Payload = Record<string, unknown> & { deliveryId: string; event: string; timestamp: string };

const pick = <K extends string>(obj: Record<string, unknown> | undefined, keys: readonly K[]) =>
  obj ? Object.fromEntries(keys.map((k) => [k, obj[k] ?? null])) : undefined;

/** Builds the full payload ("Send all fields"); fields not ready are null. */
export function buildPayload(input: { deliveryId: string; event: string; channel: string; timestamp: Date; data: EventData }): Payload {
  const { data } = input;
  const recording = data.recording ? { url: data.recording.url, durationSeconds: String(data.recording.durationSeconds) } : null;
  const body: Payload = {
    deliveryId: input.deliveryId,
    event: input.event,
    channel: input.channel,
    timestamp: input.timestamp.toISOString(),
  };
  if (isCampaignEvent(input.event)) {
    // A campaign is no conversation: no transcript, recording or analysis to be null.
    body.campaign = pick(data.campaign, CAMPAIGN_FIELDS) ?? null;
    body.metadata = data.metadata ?? null;
    return body;
  }
  if (isTestRunEvent(input.event)) {
    // A run's transcript and results are in its own object.
    body.testRun = pick(data.testRun, TEST_RUN_FIELDS) ?? null;
    body.metadata = data.metadata ?? null;
    return body;
  }
  if (input.channel === "voice") body.call = pick(data.call, CALL_FIELDS) ?? null;
  else body.chat = pick(data.chat, CHAT_FIELDS) ?? null;
  body.transcript = data.transcript ?? null;
  body.recording = recording;
  body.analysis = data.analysis ?? null;
  body.report = data.report ?? null;
  body.metadata = data.metadata ?? null;
  return body;
}

/** `custom` mode: keeps the envelope and only the selected leaf paths, nesting preserved. */
export function shapePayload(full: Payload, paths: readonly string[]): Payload {
  const out = Object.fromEntries(ENVELOPE_PATHS.map((k) => [k, full[k]])) as Payload;
  for (const path of paths) {
    const keys = path.split(".");
    let src: unknown = full;
    for (const k of keys) src = src && typeof src === "object" ? (src as Record<string, unknown>)[k] : undefined;
    if (src === undefined) continue; // e.g. a call.* path on a widget event
    let dst: Record<string, unknown> = out;
    keys.slice(0, -1).forEach((k) => {
      if (typeof dst[k] !== "object" || dst[k] === null) dst[k] = {};
      dst = dst[k] as Record<string, unknown>;
    });
    dst[keys[keys.length - 1] as string] = src;
  }
  return out;
}

/**
 * A payload's text around its deliveryId (its first key: buildPayload and shapePayload put it
 * there), so that every delivery of one event gets its body as `head + id + tail`, serialized
 * once: the emit's statement writes it that way in SQL, and the worker makes the same string.
 */
export interface BodyTemplate {
  head: string;
  tail: string;
}

const ID_HEAD = '{"deliveryId":"';

export function bodyTemplate(full: Payload): BodyTemplate {
  const text = JSON.stringify({ ...full, deliveryId: "" });
  if (!text.startsWith(`${ID_HEAD}"`)) throw new Error("a payload's first key must be its deliveryId");
  return { head: ID_HEAD, tail: text.slice(ID_HEAD.length) };
}

/** One delivery's body from the template: the exact text sent and signed. */
export const bodyWithId = (template: BodyTemplate, deliveryId: string): string => `${template.head}${deliveryId}${template.tail}`;
