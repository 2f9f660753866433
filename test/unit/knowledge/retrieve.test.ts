// What retrieval gives a reply (src/knowledge/retrieve.ts withKnowledge): the passages before the
// user's last words and a record of them (which, how long the reply waited, whether they came from
// the search made while the caller spoke); a search that fails leaves the messages as they were
// and records no passage; an agent that does not retrieve on every turn records nothing.
import { describe, expect, it } from "vitest";
import type { KnowledgePlan } from "../../../src/db/schema";
import type { Prefetch } from "../../../src/knowledge/prefetch";
import { knowledgeTurnOf, type RetrievalCtx, withKnowledge } from "../../../src/knowledge/retrieve";
import type { Passage } from "../../../src/knowledge/search";
import type { ChatMessage } from "../../../src/providers/types";

const KB = "0193b6e2-0000-7000-8000-000000000002";
const plan: KnowledgePlan = { knowledgeBaseIds: [KB], topK: 3, maxDistance: null, retrieval: "every_turn" };
const payer = { organizationId: "0193b6e2-0000-7000-8000-000000000001", apiKeyId: null, method: "POST", endpoint: "/test" };
const question = "How much does teeth whitening cost?";
const messages: ChatMessage[] = [
  { role: "system", content: "You are the front desk." },
  { role: "user", content: question },
];
const passage: Passage = {
  chunkId: "0193b6e2-0000-7000-8000-00000000000a",
  documentId: "0193b6e2-0000-7000-8000-00000000000b",
  documentName: "Prices",
  knowledgeBaseId: KB,
  heading: "Whitening",
  content: "Teeth whitening costs 250 dollars.",
  position: 1,
  distance: 0.2,
  score: 0.8,
};

/** A context whose own search fails at once (its embeddings provider is down). */
const ctx = {
  providers: {
    embeddings: () => {
      throw new Error("the embeddings provider is down");
    },
  },
} as unknown as RetrievalCtx;

const prefetchOf = (taken: Promise<Passage[]> | null): Prefetch & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    hint: () => undefined,
    take: (q) => {
      asked.push(q);
      return taken;
    },
  };
};

describe("withKnowledge", () => {
  it("puts the passages of the search made while the caller spoke before the user's words, and says they came from it", async () => {
    const prefetch = prefetchOf(Promise.resolve([passage]));
    const { messages: out, retrieval } = await withKnowledge(ctx, payer, plan, messages, prefetch);
    expect(prefetch.asked).toEqual([question]);
    expect(out).toHaveLength(3);
    expect(out[1]).toMatchObject({ role: "system", content: expect.stringContaining('[1] From "Prices", Whitening:\nTeeth whitening') });
    expect(out[2]).toEqual(messages[1]);
    expect(retrieval).toMatchObject({ passages: [passage], prefetched: true, waitMs: expect.any(Number) });
    expect(knowledgeTurnOf(retrieval as NonNullable<typeof retrieval>)).toEqual({
      passages: [{ chunkId: passage.chunkId, documentId: passage.documentId, documentName: "Prices", score: 0.8 }],
    });
  });

  it("searches itself when nothing was prefetched or the prefetch failed; a failed search leaves the messages and records no passage", async () => {
    for (const prefetch of [undefined, prefetchOf(null), prefetchOf(Promise.reject(new Error("prefetch failed")))]) {
      const { messages: out, retrieval } = await withKnowledge(ctx, payer, plan, messages, prefetch);
      expect(out).toBe(messages);
      expect(retrieval).toMatchObject({ passages: [], prefetched: false });
    }
  });

  it("records nothing for an agent that searches only when asked, or names no knowledge base", async () => {
    for (const p of [{ ...plan, retrieval: "tool" as const }, { ...plan, knowledgeBaseIds: [] }, undefined]) {
      expect(await withKnowledge(ctx, payer, p, messages, prefetchOf(Promise.resolve([passage])))).toEqual({ messages, retrieval: null });
    }
  });
});
