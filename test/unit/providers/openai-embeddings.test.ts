// The OpenAI-compatible adapter's POST /embeddings (src/providers/openai.ts) against a fake fetch:
// the request it sends, the vectors put back in the inputs' order, and every answer it must not
// pass on as vectors (not JSON, not the shape, too few vectors, the wrong width) refused as a
// bad_response ProviderError; a 5xx is retried, a 4xx is not.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../../src/providers/http";
import { OpenAICompatible } from "../../../src/providers/openai";

const WIDTH = 4;
const request = { model: "text-embedding-3-small", input: ["first", "second"], dimensions: WIDTH };
const vector = (x: number) => Array.from({ length: WIDTH }, (_, i) => x + i / 10);

let sent: Array<{ url: string; body: unknown; authorization: string | null }> = [];

/** The adapter, its fetch answering each request with the next of `answers`. */
function adapter(...answers: Array<() => Response>) {
  sent = [];
  vi.stubGlobal("fetch", async (input: string | URL, init: RequestInit = {}) => {
    sent.push({
      url: String(input),
      body: JSON.parse(String(init.body)),
      authorization: new Headers(init.headers).get("authorization"),
    });
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    return next();
  });
  return new OpenAICompatible("https://provider.example/v1/", "sk-test-key", { timeoutMs: 1_000, retries: 1, backoffMs: 1 });
}

const json =
  (body: unknown, status = 200) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const refusal = async (work: Promise<unknown>) => {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
};

afterEach(() => vi.unstubAllGlobals());

describe("OpenAICompatible.embed", () => {
  it("sends OpenAI's request and returns the vectors in the inputs' order with the prompt tokens", async () => {
    const provider = adapter(
      json({
        object: "list",
        data: [
          { object: "embedding", index: 1, embedding: vector(2) },
          { object: "embedding", index: 0, embedding: vector(1) },
        ],
        model: "text-embedding-3-small",
        usage: { prompt_tokens: 7, total_tokens: 7 },
      }),
    );
    expect(await provider.embed(request)).toEqual({ vectors: [vector(1), vector(2)], promptTokens: 7 });
    expect(sent).toEqual([
      {
        url: "https://provider.example/v1/embeddings",
        body: { model: "text-embedding-3-small", input: ["first", "second"], dimensions: WIDTH, encoding_format: "float" },
        authorization: "Bearer sk-test-key",
      },
    ]);
  });

  it.each([
    ["a body that is not JSON", () => new Response("<html>oops</html>", { status: 200 }), /not JSON/],
    ["JSON without data", json({ object: "list", usage: { prompt_tokens: 1 } }), /embeddings we cannot read/],
    ["numbers as strings", json({ data: [{ index: 0, embedding: ["0.1"] }], usage: { prompt_tokens: 1 } }), /cannot read/],
    [
      "no usage",
      json({
        data: [
          { index: 0, embedding: vector(1) },
          { index: 1, embedding: vector(2) },
        ],
      }),
      /cannot read/,
    ],
    [
      "fewer vectors than inputs",
      json({ data: [{ index: 0, embedding: vector(1) }], usage: { prompt_tokens: 3 } }),
      /do not match the inputs \(4 numbers each\)/,
    ],
    [
      "a vector of another width",
      json({
        data: [
          { index: 0, embedding: vector(1) },
          { index: 1, embedding: [0.1, 0.2] },
        ],
        usage: { prompt_tokens: 3 },
      }),
      /do not match the inputs \(4 numbers each\)/,
    ],
    [
      "two vectors at one index, none at the other",
      json({
        data: [
          { index: 0, embedding: vector(1) },
          { index: 0, embedding: vector(2) },
        ],
        usage: { prompt_tokens: 3 },
      }),
      /do not match the inputs/,
    ],
  ])("refuses %s as a bad response", async (_what, answer, message) => {
    const err = await refusal(adapter(answer).embed(request));
    expect(err.failure).toBe("bad_response");
    expect(err.message).toMatch(message);
    expect(sent).toHaveLength(1); // an answer we cannot read is not asked again
  });

  it("retries a 5xx, and does not retry a refusal (4xx), whose words it keeps without the key", async () => {
    const ok = json({
      data: [
        { index: 0, embedding: vector(1) },
        { index: 1, embedding: vector(2) },
      ],
      usage: { prompt_tokens: 2 },
    });
    expect((await adapter(json({ error: { message: "boom" } }, 500), ok).embed(request)).vectors).toHaveLength(2);
    expect(sent).toHaveLength(2);

    const err = await refusal(adapter(json({ error: { message: "Invalid key sk-test-key-abcdefghij" } }, 401)).embed(request));
    expect(err).toMatchObject({ failure: "rejected", status: 401 });
    expect(err.message).not.toContain("sk-test-key");
    expect(sent).toHaveLength(1);
  });
});
