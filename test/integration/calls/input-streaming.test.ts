// A web call whose agent speaks with a Cartesia voice (the system voice Katie) goes through input
// streaming (docs/calls.md, "Input streaming"): each reply is one Cartesia context fed its clauses
// as the LLM writes them. The transcript keeps what was said, each reply's speech time is measured
// from its first text in, and each reply's characters are charged once, in one row.
import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { usageEvents } from "../../../src/db/schema";
import { KATIE_VOICE_ID as KATIE } from "../../../src/voices/service";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { createWorkspace, json, testDb } from "../../support/harness";

beforeAll(async () => {
  await speech("Warming up.", WEB_RATE); // the sandbox's speech thread starts cold
}, 30_000);

describe("a web call with a Cartesia voice", () => {
  it("speaks each reply through one context fed its clauses: the transcript, the measured latency, one charge per reply", async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { firstMessage: "Hello, this is the web agent.", endCallPhrases: ["goodbye"], voiceId: KATIE });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(
      await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} }),
    );
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent");
    await client.waitForEvent((e) => e.type === "mark");
    await client.played();
    // The sandbox's LLM says it back: "You said: Yes," then "I would like to book an appointment," while it
    // writes the rest, then "please."
    await client.say(await speech("Yes, I would like to book an appointment, please.", WEB_RATE));
    await client.waitForEvent((e) => e.type === "transcript" && e.role === "user");
    await client.waitForEvent((e) => e.type === "mark" && e.name !== "turn-0");
    await client.played();
    await client.say(await speech("No thanks, goodbye.", WEB_RATE));
    const ended = await client.waitForEvent((e) => e.type === "ended");
    expect(ended.reason).toBe("agent-ended-call");
    await client.closed;

    const done = await waitForCall(ws, call.id, (c) => c.status === "completed");
    const turns = done.transcript.turns;
    expect(
      turns.map((t) => [t.role, t.text]),
      JSON.stringify(turns),
    ).toEqual([
      ["agent", "Hello, this is the web agent."],
      ["user", "Yes, I would like to book an appointment, please."],
      ["agent", "You said: Yes, I would like to book an appointment, please."],
      ["user", "No thanks, goodbye."],
      ["agent", "Goodbye! You said: No thanks, goodbye."],
    ]);
    const replies = turns.filter((t) => t.role === "agent" && t.latency);
    expect(replies).toHaveLength(2);
    for (const t of replies) {
      const l = t.latency as NonNullable<typeof t.latency>;
      expect(l.ttsMs).toBeGreaterThan(0); // from the reply's first text into the context to its first audio
      expect(l.ttsMs).toBeLessThan(5_000);
      expect((l.endpointingMs ?? 0) + l.sttMs + l.llmMs + l.ttsMs + l.platformMs).toBe(l.voiceToVoiceMs);
    }

    // One Cartesia context per reply (the first message's too), each charged its characters once:
    // the per-sentence path would have made a row per sentence ("You said: Yes," and the rest).
    // In the order they were held (ids are time-ordered): without an ORDER BY, PostgreSQL returns a row its settle
    // rewrote after the others.
    const tts = (await testDb().select().from(usageEvents).where(eq(usageEvents.callId, call.id)).orderBy(asc(usageEvents.id))).filter(
      (r) => r.modality === "tts",
    );
    expect(tts.map((r) => [r.provider, r.status, r.quantity])).toEqual(
      turns.filter((t) => t.role === "agent").map((t) => ["cartesia", 200, [...t.text].length]),
    );
  }, 90_000);
});
