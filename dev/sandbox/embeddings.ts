// The provider sandbox's embeddings (POST /v1/embeddings): deterministic vectors in which texts
// that share words are near each other, so retrieval can be tested offline (docs/knowledge.md,
// "The sandbox's embeddings"). Each word (lower-cased, a plural or -ing/-ed ending taken off,
// common English words left out) adds ±1 to a few coordinates chosen by its hash (feature
// hashing), weighted by 1 + log of its count; the vector is then scaled to length 1. Its cosine
// similarity is thus about the overlap of two texts' vocabularies: nothing like a real model's
// meaning, but stable, fast and honest about what it can find.

import { invalid } from "./errors";

const STOP = new Set(
  (
    "a an and are as at be but by can do does for from has have how i if in is it its me my of on or our so that the their " +
    "them there these they this to us was we were what when where which who why will with you your yours"
  ).split(" "),
);

/** FNV-1a, 32 bits. */
function hash(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A word's root, roughly: enough that "prices" meets "price" and "opening" meets "open". */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** The words that count: letters and digits in any script, lower-cased and stemmed, without stop words. */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w)).map(stem);
}

/** Coordinates each word touches. */
const SPREAD = 3;

export function sandboxEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const counts = new Map<string, number>();
  for (const t of terms(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const [term, count] of counts) {
    const weight = 1 + Math.log(count);
    for (let k = 0; k < SPREAD; k++) {
      const h = hash(term, k);
      v[h % dimensions] = (v[h % dimensions] as number) + (h & 0x80000000 ? -weight : weight);
    }
  }
  const norm = Math.sqrt(v.reduce((n, x) => n + x * x, 0));
  // A text without words still gets a unit vector (cosine with a zero vector is undefined).
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

/** Tokens as the sandbox counts them for `usage` (four characters each, at least one per input). */
export const sandboxTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

/** text-embedding-3-small's width, when a request names no `dimensions`. */
export const DEFAULT_DIMENSIONS = 1536;
/** OpenAI's limits: 2,048 inputs a request, 8,192 tokens an input. */
const MAX_INPUTS = 2048;
const MAX_INPUT_TOKENS = 8192;

export interface EmbeddingRequest {
  model: string;
  input: string[];
  dimensions: number;
}

/** OpenAI's request shape: `input` a string or strings (token arrays are not served here), `dimensions`, `encoding_format` float. */
export function parseEmbeddingRequest(body: unknown): EmbeddingRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("The request body must be a JSON object.");
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || !b.model) throw invalid("you must provide a model parameter", "model", null);
  const input = typeof b.input === "string" ? [b.input] : b.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((x) => typeof x === "string"))
    throw invalid("'input' must be a non-empty string or a non-empty array of strings.", "input");
  if (input.length > MAX_INPUTS) throw invalid(`'input' holds ${input.length} items; at most ${MAX_INPUTS} are allowed.`, "input");
  for (const [i, text] of (input as string[]).entries()) {
    if (text.length === 0) throw invalid(`'input[${i}]' is empty.`, "input");
    if (sandboxTokens(text) > MAX_INPUT_TOKENS)
      throw invalid(
        `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however input[${i}] has ${sandboxTokens(text)}.`,
        "input",
        "context_length_exceeded",
      );
  }
  const dimensions = b.dimensions === undefined ? DEFAULT_DIMENSIONS : b.dimensions;
  if (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > DEFAULT_DIMENSIONS)
    throw invalid(`'dimensions' must be an integer from 1 to ${DEFAULT_DIMENSIONS}.`, "dimensions");
  if (b.encoding_format !== undefined && b.encoding_format !== "float")
    throw invalid("The provider sandbox answers only encoding_format 'float'.", "encoding_format");
  return { model: b.model, input: input as string[], dimensions };
}

/** OpenAI's answer: one embedding per input, in order, and the tokens they held. */
export function embed(request: EmbeddingRequest) {
  const tokens = request.input.reduce((n, text) => n + sandboxTokens(text), 0);
  return {
    object: "list" as const,
    data: request.input.map((text, index) => ({
      object: "embedding" as const,
      index,
      embedding: sandboxEmbedding(text, request.dimensions),
    })),
    model: request.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
