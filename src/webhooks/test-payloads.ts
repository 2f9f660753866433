// What Send Test sends (spec: Delivery behaviour 3): for any event this platform emits, a plausible
// call or chat at the point where that event fires, made into the event's data by the real
// mappers (callEventData, chatEventData), so a test payload has exactly the shape a real one has.
// Nothing is read or written: the call or chat exists only in the payload.

import { testRunEventData } from "../agent-tests/views";
import { callEventData } from "../calls/views";
import { campaignEventData } from "../campaigns/views";
import { chatEventData } from "../chats/runtime";
import type { AgentTestRun, Call, Campaign, Chat, ChatChannel, ChatTurn, TranscriptTurn } from "../db/schema";
import { newId } from "../lib/ids";
import { PLATFORM_EVENTS } from "./events";
import type { EventData } from "./payload";

/** Send Test's events: every event the platform sends, in the catalogue's order. */
export const TEST_EVENTS = [...PLATFORM_EVENTS] as [string, ...string[]];
/** What Send Test sends when no event is chosen. */
export const DEFAULT_TEST_EVENT = "call.completed";

/** Stands for the agent in a test payload (no agent of the workspace is named). */
const TEST_AGENT = { id: "00000000-0000-4000-8000-000000000000", name: "Test agent" };
/** Stands for the widget or messaging channel of a test chat. */
const TEST_CHANNEL_ID = "00000000-0000-4000-8000-000000000001";
/** The rows' workspace: never read, never in a payload. */
const NO_WORKSPACE = "00000000-0000-4000-8000-000000000002";

const seconds = (now: Date, s: number) => new Date(now.getTime() - s * 1000);

/** A short conversation as a call's transcript keeps it (ms from connect; the agent's reply with its latency). */
const CALL_TURNS: TranscriptTurn[] = [
  { role: "agent", text: "Hello, this is a test call.", startMs: 0, endMs: 2_100 },
  { role: "user", text: "Thanks, the webhook works.", startMs: 2_600, endMs: 4_300 },
  {
    role: "agent",
    text: "Great. Goodbye!",
    startMs: 5_050,
    endMs: 6_200,
    latency: { voiceToVoiceMs: 750, endpointingMs: 300, sttMs: 120, llmMs: 210, ttsMs: 90, platformMs: 30 },
  },
];

/** A call as the row stands when `phase`'s event fires (src/calls/lifecycle.ts). */
function testCall(phase: string, now: Date): Call {
  const base: Call = {
    id: newId(),
    organizationId: NO_WORKSPACE,
    agentId: TEST_AGENT.id,
    agentName: TEST_AGENT.name,
    agentVersion: 1,
    type: "phone",
    direction: "outbound",
    status: "in-progress",
    endedReason: null,
    fromNumber: "+15550100000",
    toNumber: "+15550100001",
    provider: null,
    providerCallId: null,
    idempotencyKey: null,
    idempotencyHash: null,
    variables: {},
    metadata: { test: true },
    transcript: [],
    analysis: null,
    transfer: null,
    report: null,
    analysisError: null,
    recordingKey: null,
    recordingSeconds: null,
    sessionTokenHash: null,
    sessionTokenExpiresAt: null,
    sessionTokenUsedAt: null,
    streamTokenHash: null,
    deadlineAt: new Date(now.getTime() + 600_000),
    startedAt: null,
    endedAt: null,
    costMicro: 0,
    voiceToVoiceMs: null,
    campaignId: null,
    campaignRecipientId: null,
    answeredBy: null,
    createdAt: seconds(now, 50),
    updatedAt: now,
  };
  switch (phase) {
    case "started":
      return { ...base, startedAt: now };
    case "failed":
      // The callee's line was busy: it never connected (call.failed carries every unsuccessful end).
      return { ...base, status: "busy", endedReason: "customer-busy", endedAt: now };
    default: {
      const ended: Call = {
        ...base,
        status: "completed",
        endedReason: "customer-ended-call",
        transcript: CALL_TURNS,
        startedAt: seconds(now, 42),
        endedAt: now,
        voiceToVoiceMs: [750],
      };
      if (phase !== "analyzed") return ended;
      return {
        ...ended,
        analysis: {
          summary: "A test call: the caller confirmed the webhook works.",
          sentiment: "positive",
          topics: ["webhook test"],
          actionItems: [],
        },
        report: {
          successScore: 1,
          criteriaResults: [{ criterion: "The caller confirmed the webhook works", passed: true }],
          extractedData: { confirmed: true },
        },
      };
    }
  }
}

/** A chat as the row stands when `<channel>.<phase>` fires (src/chats/runtime.ts): opened by a first message, ended later. */
function testChat(channel: ChatChannel, phase: string, now: Date): Chat {
  const at = (s: number) => seconds(now, s).toISOString();
  const widget = channel === "widget";
  const opening: ChatTurn[] = [
    ...(widget ? [{ role: "agent" as const, text: "Hi! How can I help?", at: at(90) }] : []),
    { role: "user", text: "Is the webhook working?", at: at(90) },
  ];
  const transcript: ChatTurn[] =
    phase === "started"
      ? opening
      : [...opening, { role: "agent", text: "Yes: this is a test message.", at: at(88) }, { role: "user", text: "Thanks!", at: at(60) }];
  const ended = phase !== "started";
  return {
    id: newId(),
    organizationId: NO_WORKSPACE,
    channel,
    widgetId: widget ? TEST_CHANNEL_ID : null,
    channelId: widget ? null : TEST_CHANNEL_ID,
    agentId: TEST_AGENT.id,
    agentName: TEST_AGENT.name,
    agentVersion: 1,
    endUserId: widget ? "test-visitor" : channel === "whatsapp" ? "15550100002" : "100000001",
    endUserName: widget ? null : "Test User",
    origin: widget ? "https://www.example.com" : null,
    status: ended ? "completed" : "in-progress",
    endedReason: ended ? (widget ? "visitor-ended" : "inactivity") : null,
    transcript,
    messageCount: transcript.length,
    toolCallCount: 0,
    startedAt: seconds(now, 90),
    lastActivityAt: ended ? seconds(now, 60) : seconds(now, 90),
    endedAt: ended ? now : null,
    createdAt: seconds(now, 90),
    updatedAt: now,
  };
}

/** A campaign as the row stands when campaign.started (just started) or campaign.completed (every recipient final) fires. */
function testCampaign(phase: string, now: Date): { campaign: Campaign; counts: Record<string, number> } {
  const started = phase === "started";
  const campaign: Campaign = {
    id: newId(),
    organizationId: NO_WORKSPACE,
    name: "Test campaign",
    agentId: TEST_AGENT.id,
    agentVersion: null,
    fromNumbers: ["+15550100000"],
    status: started ? "running" : "completed",
    pausedReason: null,
    schedule: { days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00", timezone: "America/New_York" },
    retry: { maxAttempts: 2, delaySeconds: 3600, on: ["no-answer", "busy"] },
    maxCallsInFlight: 5,
    callsInFlight: 0,
    recipientCount: 10,
    metadata: { test: true },
    startedAt: started ? now : seconds(now, 3600),
    completedAt: started ? null : now,
    createdAt: seconds(now, 7200),
    updatedAt: now,
  };
  const counts = started
    ? { pending: 10, calling: 0, completed: 0, voicemail: 0, "no-answer": 0, busy: 0, failed: 0, canceled: 0 }
    : { pending: 0, calling: 0, completed: 7, voicemail: 1, "no-answer": 1, busy: 1, failed: 0, canceled: 0 };
  return { campaign, counts };
}

/** A test run as the row stands when test_run.completed fires: a short scripted conversation that passed. */
function testRun(now: Date): AgentTestRun {
  const at = (s: number) => seconds(now, s).toISOString();
  return {
    id: newId(),
    organizationId: NO_WORKSPACE,
    testId: TEST_CHANNEL_ID,
    agentId: TEST_AGENT.id,
    agentVersion: null,
    batchId: null,
    mode: "chat",
    callId: null,
    source: null,
    criteria: null,
    turns: null,
    status: "passed",
    transcript: [
      { role: "user", text: "Is the webhook working?", at: at(3) },
      { role: "agent", text: "Yes: this is a test run.", at: at(2) },
    ],
    results: {
      criteria: [{ criterion: 'The agent says "test run"', passed: true, reason: 'The transcript mentions "test run".' }],
      extractedData: {},
      toolExpectations: [],
    },
    toolsCalled: [],
    latency: { turns: 1, averageMs: 850, maxMs: 850, totalMs: 850 },
    costMicro: 120,
    error: null,
    startedAt: seconds(now, 4),
    finishedAt: now,
    createdAt: seconds(now, 5),
    updatedAt: now,
  };
}

/**
 * The data of a test `event` (one of TEST_EVENTS), as its real emitter builds it. A test call has
 * no recording (its URL would answer 404), so no origin is needed for one.
 */
export function testEventData(event: string, now = new Date()): EventData {
  if (!PLATFORM_EVENTS.has(event)) throw new Error(`Send Test has no payload for ${event}`);
  const [prefix = "", phase = ""] = event.split(".");
  if (prefix === "call") return callEventData(testCall(phase, now), "");
  if (prefix === "campaign") {
    const { campaign, counts } = testCampaign(phase, now);
    return campaignEventData(campaign, counts as Parameters<typeof campaignEventData>[1]);
  }
  if (prefix === "test_run") return testRunEventData(testRun(now), "Test scenario");
  return chatEventData(testChat(prefix as ChatChannel, phase, now), phase === "completed");
}
