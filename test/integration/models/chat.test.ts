// /v1/llm/chat and its OpenAI-SDK alias, driven by the official `openai` package.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { baseUrl, createWorkspace, expectError, json, type Workspace } from "../../support/harness";

/** The official SDK pointed at our worker: only baseURL and the key change. */
const client = (ws: Workspace) => new OpenAI({ baseURL: `${baseUrl()}/v1`, apiKey: ws.apiKey, maxRetries: 0 });

type Completion = {
  choices: Array<{ message: { content: string | null }; finish_reason: string }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
};

describe("chat completions", () => {
  it("works with the official openai SDK with only a baseURL change, deterministically", async () => {
    const ws = await createWorkspace();
    const openai = client(ws);
    const ask = () =>
      openai.chat.completions.create({
        model: "sandbox-chat",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hello there, platform" },
        ],
      });
    const first = await ask();
    expect(first.object).toBe("chat.completion");
    expect(first.choices[0]?.message.role).toBe("assistant");
    expect(first.choices[0]?.message.content).toContain("Hello there, platform");
    expect(first.usage?.total_tokens).toBe((first.usage?.prompt_tokens ?? 0) + (first.usage?.completion_tokens ?? 0));
    expect(first.usage?.prompt_tokens).toBeGreaterThan(0);
    const second = await ask();
    expect(second.choices[0]?.message.content).toBe(first.choices[0]?.message.content);
  });

  it("refuses stream: true with 400 stream_not_supported, through the SDK and directly", async () => {
    const ws = await createWorkspace();
    await expect(
      client(ws).chat.completions.create({ model: "sandbox-chat", messages: [{ role: "user", content: "hi" }], stream: true }),
    ).rejects.toMatchObject({
      status: 400,
    });
    const body = await expectError(
      await ws.api("/v1/llm/chat", { method: "POST", json: { messages: [{ role: "user", content: "hi" }], stream: true } }),
      400,
      "stream_not_supported",
    );
    expect(body.message).toMatch(/[Ss]treaming is not available/);
  });

  it("honours maxTokens (our alias of max_tokens) and the deployment's default model", async () => {
    const ws = await createWorkspace();
    const res = await ws.api("/v1/llm/chat", {
      method: "POST",
      json: { messages: [{ role: "user", content: "please repeat all of these many words back to me now" }], maxTokens: 3 },
    });
    expect(res.status).toBe(200);
    const c = await json<Completion & { model: string }>(res);
    expect(c.choices[0]?.finish_reason).toBe("length");
    expect(c.usage.completion_tokens).toBeLessThanOrEqual(3);
    expect(c.model).toBe("gpt-4o-mini");
  });

  it("validates the request at the edge: unknown fields, empty messages, n > 1, bad types, size, content type", async () => {
    const ws = await createWorkspace();
    const chat = (body: unknown) => ws.api("/v1/llm/chat", { method: "POST", json: body });
    await expectError(await chat({ messages: [{ role: "user", content: "hi" }], temperature: 5 }), 400, "validation_failed");
    await expectError(await chat({ messages: [] }), 400, "validation_failed");
    await expectError(await chat({ messages: [{ role: "user", content: "hi" }], n: 2 }), 400, "validation_failed");
    await expectError(await chat({ messages: [{ role: "robot", content: "hi" }] }), 400, "validation_failed");
    await expectError(await chat({ messages: [{ role: "user", content: "hi" }], frobnicate: true }), 400, "validation_failed");
    await expectError(await chat({ messages: "hi" }), 400, "validation_failed");
    await expectError(await chat({ messages: [{ role: "user", content: "x".repeat(1_100_000) }] }), 413, "payload_too_large");
    await expectError(
      await ws.api("/v1/llm/chat", { method: "POST", body: "hi", headers: { "content-type": "text/plain" } }),
      415,
      "unsupported_media_type",
    );
  });

  it("maps a model the provider does not have to 400, and charges nothing", async () => {
    const ws = await createWorkspace();
    const before = await json<{ credits: { remainingMicro: number } }>(await ws.api("/v1/usage"));
    await expectError(
      await ws.api("/v1/llm/chat", { method: "POST", json: { model: "missing-model", messages: [{ role: "user", content: "hi" }] } }),
      400,
      "validation_failed",
    );
    const after = await json<{ credits: { remainingMicro: number } }>(await ws.api("/v1/usage"));
    expect(after.credits.remainingMicro).toBe(before.credits.remainingMicro);
  });
});
