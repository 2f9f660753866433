// The streaming provider clients against the provider sandbox (the same server the stack uses):
// OpenAI's SSE completion read into deltas and the final usage, speech read as chunks as it is
// made (OpenAI and ElevenLabs), and a cancel that stops the request at once, is never retried and is
// seen by the provider as a client that went away. The SSE reader also takes events split anywhere.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withLatencyProfile } from "../../../dev/sandbox/latency";
import { type ProviderSandbox, startProviderSandbox } from "../../../dev/sandbox/openai";
import { ElevenLabs } from "../../../src/providers/elevenlabs";
import { ProviderError } from "../../../src/providers/http";
import { OpenAICompatible } from "../../../src/providers/openai";
import type { ChatStreamEvent } from "../../../src/providers/types";

let sandbox: ProviderSandbox;
let instant: OpenAICompatible;
let realistic: OpenAICompatible;
let split: Server;
let splitUrl: string;

const CALL = { timeoutMs: 10_000, retries: 2, backoffMs: 10 };
const messages = [{ role: "user" as const, content: "Tuesday morning works for me." }];

beforeAll(async () => {
  sandbox = await startProviderSandbox();
  instant = new OpenAICompatible(sandbox.url, sandbox.apiKey, CALL);
  realistic = new OpenAICompatible(withLatencyProfile(sandbox.url, "realistic"), sandbox.apiKey, CALL);
  // A server that sends OpenAI's events cut at awkward places: inside a line, CRLF, a comment.
  split = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const wire =
      ': keep-alive\r\n\r\ndata: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\r\n\r\n' +
      'data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n' +
      'data: {"choices":[{"index":0,"delta":{"content":"lo."},"finish_reason":null}]}\n\n' +
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
      'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\ndata: [DONE]\n\n';
    const cuts = [7, 40, 41, 120, 200, 201, 333];
    let at = 0;
    for (const c of cuts) {
      res.write(wire.slice(at, c));
      at = c;
    }
    res.end(wire.slice(at));
  });
  await new Promise<void>((r) => split.listen(0, "127.0.0.1", r));
  splitUrl = `http://127.0.0.1:${(split.address() as { port: number }).port}/v1`;
});
afterAll(async () => {
  await sandbox.stop();
  await new Promise((r) => split.close(r));
});

async function collect(events: AsyncIterable<ChatStreamEvent>) {
  const out: ChatStreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe("chat stream", () => {
  it("joins to the non-streamed reply, with the usage of the same request last", async () => {
    const whole = await instant.complete({ model: "gpt-4o-mini", messages });
    const events = await collect(instant.stream({ model: "gpt-4o-mini", messages }));
    const text = events.flatMap((e) => (e.type === "delta" ? [e.text] : [])).join("");
    expect(text).toBe(whole.choices[0]?.message.content);
    const end = events.at(-1);
    expect(end).toEqual({ type: "end", finishReason: "stop", usage: whole.usage, toolCalls: [] });
    expect(events.filter((e) => e.type === "delta").length).toBe(whole.usage.completion_tokens);
  });

  it("assembles streamed tool calls from their pieces: the same calls as the non-streamed answer, in order", async () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "lookup_order",
          description: "Looks up an order.",
          parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
        },
      },
      { type: "function", function: { name: "check_stock", description: "Stock.", parameters: { type: "object", properties: {} } } },
    ];
    const asked = [{ role: "user" as const, content: "Please check stock and lookup order 42." }];
    const whole = await instant.complete({ model: "gpt-4o-mini", messages: asked, tools });
    const events = await collect(instant.stream({ model: "gpt-4o-mini", messages: asked, tools }));
    expect(events.filter((e) => e.type === "delta")).toEqual([]);
    const end = events.at(-1);
    expect(end).toMatchObject({ type: "end", finishReason: "tool_calls" });
    const calls = end?.type === "end" ? end.toolCalls : [];
    expect(calls.map((c) => c.function.name)).toEqual(["check_stock", "lookup_order"]);
    expect(calls).toEqual(whole.choices[0]?.message.tool_calls);
    expect(JSON.parse(calls[1]?.function.arguments ?? "")).toHaveProperty("orderId");
  });

  it("reads events split across chunks, with CRLF and comments", async () => {
    const events = await collect(new OpenAICompatible(splitUrl, "k", CALL).stream({ model: "m", messages }));
    expect(events).toEqual([
      { type: "delta", text: "Hel" },
      { type: "delta", text: "lo." },
      { type: "end", finishReason: "stop", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, toolCalls: [] },
    ]);
  });

  it("a cancel mid-stream throws `canceled`, is not retried, and the provider sees the client leave", async () => {
    const ac = new AbortController();
    const before = sandbox.requests.length;
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of realistic.stream({ model: "gpt-4o-mini", messages }, ac.signal)) {
        if (e.type === "delta") seen.push(e.text);
        if (seen.length === 2) ac.abort();
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).failure).toBe("canceled");
    expect(seen).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 100));
    const mine = sandbox.requests.slice(before);
    expect(mine).toHaveLength(1); // no retry
    expect(mine[0]?.aborted).toBe(true);
  });

  it("a cancel before the answer throws `canceled` without a request being retried", async () => {
    const ac = new AbortController();
    const before = sandbox.requests.length;
    setTimeout(() => ac.abort(), 50); // the realistic first token is ~400 ms away
    const err = await collect(realistic.stream({ model: "gpt-4o-mini", messages }, ac.signal)).catch((e: unknown) => e);
    expect((err as ProviderError).failure).toBe("canceled");
    await new Promise((r) => setTimeout(r, 50));
    expect(sandbox.requests.length - before).toBe(1);
    const aborted = new AbortController();
    aborted.abort();
    const none = await collect(realistic.stream({ model: "gpt-4o-mini", messages }, aborted.signal)).catch((e: unknown) => e);
    expect((none as ProviderError).failure).toBe("canceled");
    expect(sandbox.requests.length - before).toBe(1); // an aborted signal sends nothing
  });

  it("provider errors before the stream are the usual ProviderErrors (retried 5xx, refused 4xx)", async () => {
    const failed = await collect(instant.stream({ model: "fault-500", messages })).catch((e: unknown) => e);
    expect((failed as ProviderError).failure).toBe("upstream");
    const refused = await collect(instant.stream({ model: "missing-model", messages })).catch((e: unknown) => e);
    expect((refused as ProviderError).failure).toBe("rejected");
  });
});

describe("speech stream", () => {
  const request = { text: "Tuesday morning works for me.", voice: "alloy", model: "tts-1", format: "pcm" as const };

  it("OpenAI: the chunks join to the same audio as the whole request, and arrive over time", async () => {
    const whole = new Uint8Array(await instant.synthesize(request));
    const chunks: Array<{ at: number; bytes: Uint8Array }> = [];
    const t0 = performance.now();
    for await (const bytes of realistic.synthesizeStream(request)) chunks.push({ at: performance.now() - t0, bytes });
    const joined = Buffer.concat(chunks.map((c) => c.bytes));
    expect(joined.length).toBe(whole.length);
    expect(chunks.length).toBeGreaterThan(3);
    expect((chunks.at(-1)?.at as number) - (chunks[0]?.at as number)).toBeGreaterThan(50);
  });

  it("ElevenLabs: the /stream endpoint, cancellable after the first chunk", async () => {
    const el = new ElevenLabs(withLatencyProfile(sandbox.elevenLabs.url, "realistic"), sandbox.elevenLabs.apiKey, CALL);
    const req = { ...request, voice: "pNInz6obpgDQGcFmaJgB", model: "eleven_flash_v2_5" };
    let bytes = 0;
    for await (const chunk of el.synthesizeStream(req)) bytes += chunk.length;
    expect(bytes).toBeGreaterThan(24_000); // over half a second of 24 kHz PCM
    expect(sandbox.requests.at(-1)?.path).toMatch(/\/stream$/);
    const ac = new AbortController();
    const err = await (async () => {
      for await (const _ of el.synthesizeStream(req, ac.signal)) ac.abort();
    })().catch((e: unknown) => e);
    expect((err as ProviderError).failure).toBe("canceled");
  });
});
