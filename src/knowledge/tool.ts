// The search_knowledge tool (docs/knowledge.md, "Retrieval"): offered to the LLM of an agent whose
// plan retrieves only when asked (`retrieval: "tool"`), answered here, in the conversation, without
// an HTTP round trip: the passages its query finds, with their sources.
import type { KnowledgePlan, ToolTurnDetail } from "../db/schema";
import type { Payer } from "../metering/metered";
import { findPassages, type RetrievalCtx } from "./retrieve";

export const SEARCH_KNOWLEDGE = "search_knowledge";

export interface KnowledgeTool {
  type: "search_knowledge";
  plan: KnowledgePlan;
}

/** The tool, when the agent's plan retrieves only when asked and names knowledge bases. */
export const knowledgeToolOf = (plan: KnowledgePlan | undefined): KnowledgeTool | null =>
  plan && plan.retrieval === "tool" && plan.knowledgeBaseIds.length > 0 ? { type: "search_knowledge", plan } : null;

/** Its OpenAI function definition. */
export const knowledgeToolFunction = {
  name: SEARCH_KNOWLEDGE,
  description:
    "Search the knowledge base (the business's own documents: prices, policies, hours, products) for passages that answer a question. " +
    "Call it before answering a question about the business that you are not sure of.",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "What to look for, in the user's words." } },
    required: ["query"],
  },
};

/** The tool's answer to one call: the passages, or why there are none. */
export async function searchKnowledgeCall(
  ctx: RetrievalCtx,
  payer: Payer,
  tool: KnowledgeTool,
  call: { id: string; arguments: string },
): Promise<ToolTurnDetail & { content: string }> {
  const t0 = Date.now();
  let args: unknown;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    args = call.arguments;
  }
  const query = typeof (args as { query?: unknown })?.query === "string" ? (args as { query: string }).query.trim().slice(0, 2000) : "";
  const base = { callId: call.id, requestId: null, name: SEARCH_KNOWLEDGE, arguments: args, statusCode: null };
  if (!query) {
    const error = "query must be a non-empty string";
    const content = JSON.stringify({ error });
    return { ...base, outcome: "invalid_arguments", latencyMs: Date.now() - t0, result: content, error, content };
  }
  try {
    const passages = await findPassages(ctx, payer, tool.plan, query);
    const content = JSON.stringify({
      passages: passages.map((p) => ({ source: p.documentName, heading: p.heading || undefined, text: p.content, score: p.score })),
    });
    return { ...base, outcome: "ok", latencyMs: Date.now() - t0, result: content.slice(0, 4000), content };
  } catch (err) {
    const error = `the knowledge base could not be searched (${(err as Error)?.message ?? "error"})`;
    const content = JSON.stringify({ error });
    return { ...base, outcome: "network_error", latencyMs: Date.now() - t0, result: content, error, content };
  }
}
