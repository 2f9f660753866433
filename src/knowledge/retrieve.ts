// Retrieval in conversations (docs/knowledge.md, "Retrieval"): before the agent answers, the
// caller's or visitor's last words are searched in the agent's knowledge bases and the passages
// found are put before those words as a system message, with their source. One rule for calls and
// chats (src/tools/runtime.ts agentTurn calls it); the query is metered to the conversation. A
// search that fails or takes too long is left out: the agent answers without it, never not at all.
import type { KnowledgePlan, KnowledgeTurn } from "../db/schema";
import type { Payer } from "../metering/metered";
import type { ChatMessage } from "../providers/types";
import type { Ctx, Providers } from "../services";
import { KnowledgePrefetch, type Prefetch } from "./prefetch";
import { embedQuestion, nearestPassages, type Passage } from "./search";

/** The longest a reply waits for its passages. */
export const RETRIEVAL_BUDGET_MS = 1_500;
/** A last message this short is searched with the one before it ("and how much is that?"). */
const SHORT_WORDS = 6;

export type RetrievalCtx = Ctx<"db" | "config" | "waitUntil"> & { providers: Pick<Providers, "embeddings"> };

/** What is searched: the user's last words, with the words before them when they are few. */
export function questionOf(messages: readonly ChatMessage[]): string {
  const said = messages
    .filter((m) => m.role === "user" && typeof m.content === "string" && m.content.trim())
    .map((m) => m.content as string);
  const last = said.at(-1)?.trim() ?? "";
  if (!last) return "";
  const previous = said.at(-2)?.trim();
  return previous && last.split(/\s+/).length < SHORT_WORDS ? `${previous}\n${last}` : last;
}

/** The passages as the LLM reads them: numbered, each with where it comes from. */
export function passagesMessage(passages: readonly Passage[]): ChatMessage {
  const body = passages
    .map((p, i) => `[${i + 1}] From "${p.documentName}"${p.heading ? `, ${p.heading}` : ""}:\n${p.content}`)
    .join("\n\n");
  return {
    role: "system",
    content:
      "Passages from the knowledge base that may answer the user's last message. Use them when they answer it; " +
      "do not invent facts they do not hold, and say so when they do not answer it.\n\n" +
      body,
  };
}

/** The passages for `question` in the agent's knowledge bases. */
export async function findPassages(
  ctx: RetrievalCtx,
  payer: Payer,
  plan: KnowledgePlan,
  question: string,
  signal?: AbortSignal,
): Promise<Passage[]> {
  if (!question || plan.knowledgeBaseIds.length === 0) return [];
  const { vector } = await embedQuestion(ctx, payer, question, signal);
  return nearestPassages(ctx.db, {
    organizationId: payer.organizationId,
    knowledgeBaseIds: plan.knowledgeBaseIds,
    vector,
    topK: plan.topK,
    maxDistance: plan.maxDistance,
  });
}

/** What retrieval gave one reply (an agent that retrieves on every turn). */
export interface Retrieval {
  /** The passages put before the user's words, nearest first (none: nothing found, nothing close enough, or the search failed). */
  passages: Passage[];
  /** How long the reply waited for them. */
  waitMs: number;
  /** They came from the search made while the caller spoke (a call's prefetch), not from one made by the reply. */
  prefetched: boolean;
}

/** A reply's passages as its transcript turn keeps them (docs/knowledge.md, "Retrieval"): which, not their text. */
export const knowledgeTurnOf = (r: Retrieval): KnowledgeTurn => ({
  passages: r.passages.map((p) => ({ chunkId: p.chunkId, documentId: p.documentId, documentName: p.documentName, score: p.score })),
});

/**
 * `messages` with the passages for the user's last words before them, when the agent retrieves on
 * every turn and something was found in time; `messages` as they are otherwise. `retrieval` says
 * what it did (null: the agent does not retrieve on every turn).
 */
export async function withKnowledge(
  ctx: RetrievalCtx,
  payer: Payer,
  plan: KnowledgePlan | undefined,
  messages: ChatMessage[],
  prefetch?: Prefetch,
): Promise<{ messages: ChatMessage[]; retrieval: Retrieval | null }> {
  if (plan?.retrieval !== "every_turn" || plan.knowledgeBaseIds.length === 0) return { messages, retrieval: null };
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  if (lastUser < 0) return { messages, retrieval: null };
  const started = Date.now();
  const budget = AbortSignal.timeout(RETRIEVAL_BUDGET_MS);
  let passages: Passage[];
  let prefetched = false;
  try {
    const question = questionOf(messages);
    // On a call that streams its transcription, the search of the caller's words may be done already (prefetch.ts).
    const search = () => findPassages(ctx, payer, plan, question, budget);
    const taken = prefetch?.take(question) ?? null;
    prefetched = taken !== null;
    passages = await (taken
      ? taken.catch(() => {
          prefetched = false;
          return search();
        })
      : search());
  } catch (err) {
    console.warn(
      JSON.stringify({ level: "warn", msg: "knowledge retrieval skipped", error: (err as Error)?.name, message: (err as Error)?.message }),
    );
    return { messages, retrieval: { passages: [], waitMs: Date.now() - started, prefetched: false } };
  }
  const retrieval = { passages, waitMs: Date.now() - started, prefetched };
  if (passages.length === 0) return { messages, retrieval };
  return { messages: [...messages.slice(0, lastUser), passagesMessage(passages), ...messages.slice(lastUser)], retrieval };
}

/** A call's prefetch of passages as the caller speaks, when its agent retrieves on every turn; else null. */
export function prefetchFor(ctx: RetrievalCtx, payer: Payer, plan: KnowledgePlan | undefined): KnowledgePrefetch | null {
  if (plan?.retrieval !== "every_turn" || plan.knowledgeBaseIds.length === 0) return null;
  return new KnowledgePrefetch((text) => findPassages(ctx, payer, plan, text, AbortSignal.timeout(RETRIEVAL_BUDGET_MS)));
}
