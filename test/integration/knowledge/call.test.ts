// Retrieval in a call (docs/knowledge.md, "Agents"): the caller's words are searched in the agent's
// knowledge base before the reply, so the agent answers from it (the provider sandbox answers with the
// first passage it is given); the search is metered to the call and shown in its cost. The stack's
// calls transcribe with the sandbox's Flux stream, so the words are searched while the caller is
// still speaking (src/knowledge/prefetch.ts, fed by the STT stage's onHeard): the reply's latency
// record says its passages came from that search, not from one the reply made after the turn.
import { describe, expect, it } from "vitest";
import type { DocumentView, KnowledgeBaseView } from "../../../src/knowledge/schema";
import { createAgent, joinWebCall, speech, WEB_RATE, waitForCall } from "../../support/calls";
import { createWorkspace, json, until } from "../../support/harness";

describe("a web call with a knowledge base", () => {
  it("answers the caller's question from the passage the question finds", async () => {
    const ws = await createWorkspace("Call knowledge");
    const kb = await json<KnowledgeBaseView>(await ws.api("/v1/knowledge-bases", { method: "POST", json: { name: "Office" } }));
    const added = await json<DocumentView>(
      await ws.api(`/v1/knowledge-bases/${kb.id}/documents`, {
        method: "POST",
        json: {
          type: "text",
          name: "Prices",
          text: "# Cleaning\n\nA cleaning costs 80 dollars.\n\n# Whitening\n\nTeeth whitening costs 250 dollars.\n\n# Parking\n\nParking is free behind the building.",
        },
      }),
    );
    await until(
      async () => json<DocumentView>(await ws.api(`/v1/knowledge-bases/${kb.id}/documents/${added.id}`)),
      (d) => d.status === "ready",
    );
    const agent = await createAgent(ws, { firstMessage: null, knowledge: { knowledgeBaseIds: [kb.id], topK: 1 } });
    const res = await ws.api(`/v1/agents/${agent.id}/web-call`, { method: "POST", json: {} });
    const { call, webCall } = await json<{ call: { id: string }; webCall: { url: string } }>(res);
    const client = await joinWebCall(webCall.url);
    await client.waitForEvent((e) => e.type === "status" && e.status === "in-progress");
    await client.say(await speech("How much does teeth whitening cost?", WEB_RATE));
    const reply = await client.waitForEvent((e) => e.type === "transcript" && e.role === "agent", 20_000);
    expect(reply.text).toBe('From "Prices": Teeth whitening costs 250 dollars.');
    await client.played();
    await ws.api(`/v1/calls/${call.id}/end`, { method: "POST" });
    await client.closed;
    const done = await waitForCall(ws, call.id, (c) => c.status === "completed" && c.cost.knowledge.quantity > 0);
    expect(done.cost.knowledge.unit).toBe("tokens");
    expect(done.transcript.turns.map((t) => t.role)).toEqual(["user", "agent"]);
    expect(done.transcript.turns[1]?.latency).toMatchObject({ retrievalPrefetched: true, retrievalMs: expect.any(Number) });
  });
});
