// A calls row as the calls service reads it, for the unit tests of what is built from one (the
// API's view, the webhooks' payloads): a completed phone call with a transcript and a recording.
import type { Call } from "../../../src/db/schema";

const at = (iso: string) => new Date(iso);

export const callRow = (over: Partial<Call> = {}): Call => ({
  id: "0193b6e2-7c1a-7a51-9a4e-3c2f1d0e8b77",
  organizationId: "0193b6e2-0000-7000-8000-000000000001",
  agentId: "0193b6e2-0000-7000-8000-000000000002",
  agentName: "Front desk",
  type: "phone",
  direction: "outbound",
  status: "completed",
  endedReason: "customer-ended-call",
  fromNumber: "+14155550100",
  toNumber: "+12025550100",
  provider: "twilio",
  providerCallId: "CA1",
  idempotencyKey: null,
  idempotencyHash: null,
  variables: { name: "Ada" },
  metadata: { ticket: "T-1" },
  transcript: [
    {
      role: "user",
      text: "Hi.",
      startMs: 2_000,
      endMs: 2_500,
      latency: { voiceToVoiceMs: 900, sttMs: 200, llmMs: 250, ttsMs: 150, platformMs: 300 },
    },
    { role: "agent", text: "Hello.", startMs: 0, endMs: 1_000 },
    {
      role: "agent",
      text: "How can I help?",
      startMs: 3_000,
      endMs: 4_000,
      latency: { voiceToVoiceMs: 700, sttMs: 150, llmMs: 200, ttsMs: 150, platformMs: 200 },
    },
  ],
  analysis: null,
  transfer: null,
  report: null,
  analysisError: null,
  recordingKey: "rec/1.wav",
  recordingSeconds: 12,
  sessionTokenHash: null,
  sessionTokenExpiresAt: null,
  sessionTokenUsedAt: null,
  streamTokenHash: null,
  deadlineAt: at("2025-01-01T10:10:00Z"),
  startedAt: at("2025-01-01T10:00:00Z"),
  endedAt: at("2025-01-01T10:00:12.34Z"),
  costMicro: 0,
  voiceToVoiceMs: [900],
  createdAt: at("2025-01-01T09:59:58Z"),
  updatedAt: at("2025-01-01T10:00:13Z"),
  ...over,
});
