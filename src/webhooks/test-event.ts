// The synthetic payload of "Send Test" (spec: Delivery behaviour 3): a plausible completed call.
import { newId } from "../lib/ids";
import type { EventData } from "./payload";

export function syntheticCallCompleted(now = new Date()): EventData {
  const started = new Date(now.getTime() - 42_000);
  return {
    call: {
      id: newId(),
      status: "completed",
      direction: "outbound",
      durationSeconds: 42,
      fromNumber: "+15550100000",
      toNumber: "+15550100001",
      agentId: "00000000-0000-4000-8000-000000000000",
      agentName: "Test agent",
      startedAt: started.toISOString(),
      endedAt: now.toISOString(),
    },
    transcript: {
      fullText: "Agent: Hello, this is a test call.\nUser: Thanks, the webhook works.",
      turns: [
        { role: "agent", text: "Hello, this is a test call." },
        { role: "user", text: "Thanks, the webhook works." },
      ],
    },
    recording: null,
    analysis: null,
    report: null,
    metadata: { test: true },
  };
}
