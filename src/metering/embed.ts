// Embeddings, metered by input tokens: the one rule knowledge ingestion, the query route and
// retrieval in conversations share (docs/knowledge.md, "Metering"). The hold is a bound from the
// text (a token is at least two characters in every tokenizer we price, one per input at least);
// the charge is the provider's count, never more than the hold.
import type { Db } from "../db/client";
import type { EmbeddingProvider } from "../providers/types";
import { meter, type Payer } from "./metered";

/** The most tokens `texts` can be: a bound for the hold. */
export const embeddingTokenBound = (texts: string[]): number => texts.reduce((n, t) => n + Math.ceil(t.length / 2) + 1, 0);

export async function meteredEmbeddings(
  db: Db,
  payer: Payer,
  provider: EmbeddingProvider,
  request: { model: string; input: string[]; dimensions: number },
  settleInBackground?: (work: Promise<unknown>) => void,
  signal?: AbortSignal,
): Promise<{ vectors: number[][]; tokens: number }> {
  const bound = embeddingTokenBound(request.input);
  return meter(
    db,
    payer,
    { modality: "embedding", provider: provider.name, model: request.model, maxQuantity: bound },
    async (held) => {
      const both = signal ? AbortSignal.any([signal, held]) : held;
      const out = await provider.embed(request, both);
      const tokens = Math.min(bound, out.promptTokens);
      return { result: { vectors: out.vectors, tokens }, quantity: tokens, promptTokens: tokens };
    },
    settleInBackground,
  );
}
