// POST /v1/llm/chat (the spec's path) and POST /v1/chat/completions (the path the `openai`
// SDK calls): one non-streaming chat completion, metered by tokens.
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../context";
import { ApiError } from "../../../lib/errors";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { metered } from "../../../metering/metered";
import type { ChatRequest } from "../../../providers/types";
import { chatCompletionSchema, chatRequestSchema, DEFAULT_MAX_TOKENS } from "./schema";

const utf8 = new TextEncoder();

/**
 * An upper bound of the tokens a request can consume: a token is at least one byte of UTF-8,
 * plus a few tokens of framing per message, plus the output limit.
 */
export function maxTokensOf(request: ChatRequest): number {
  const input = utf8.encode(JSON.stringify([request.messages, request.tools ?? null, request.response_format ?? null])).length;
  return input + 8 * request.messages.length + (request.max_tokens ?? DEFAULT_MAX_TOKENS);
}

const route = (path: string, operationId: string, summary: string) =>
  createRoute({
    method: "post",
    path,
    tags: ["Models"],
    operationId,
    summary,
    description: "Non-streaming. `stream: true` is refused with 400 stream_not_supported. Metered by tokens (priced per 1,000).",
    security: bearerSecurity,
    request: jsonBody(chatRequestSchema),
    responses: {
      200: jsonResponse(chatCompletionSchema, "The completion, with usage."),
      ...errorResponses(400, 402, 502, 503, 504),
    },
  });

async function complete(c: Context<AppEnv>, body: z.infer<typeof chatRequestSchema>) {
  if (body.stream === true) {
    throw new ApiError(
      "stream_not_supported",
      "Streaming is not available: the API is request/response only. Send stream: false (or omit it).",
    );
  }
  const { config } = c.var;
  const { stream: _stream, stream_options: _options, maxTokens, max_completion_tokens, ...rest } = body;
  const request: ChatRequest = {
    ...rest,
    model: body.model ?? config.DEFAULT_CHAT_MODEL,
    max_tokens: body.max_tokens ?? max_completion_tokens ?? maxTokens ?? DEFAULT_MAX_TOKENS,
  };
  const provider = c.var.services.providers.chat();
  return metered(
    c,
    { modality: "chat", provider: provider.name, model: request.model, maxQuantity: maxTokensOf(request) },
    async (signal) => {
      const completion = await provider.complete(request, signal);
      const { prompt_tokens, completion_tokens } = completion.usage;
      return {
        result: completion,
        quantity: prompt_tokens + completion_tokens,
        promptTokens: prompt_tokens,
        completionTokens: completion_tokens,
      };
    },
  );
}

export function registerChat(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route("/llm/chat", "chat", "Chat completion (non-streaming)"), async (c) =>
    c.json(await complete(c, c.req.valid("json")), 200),
  );
  app.openapi(
    route("/chat/completions", "chatCompletions", "Chat completion at the OpenAI SDK's path (alias of /v1/llm/chat)"),
    async (c) => c.json(await complete(c, c.req.valid("json")), 200),
  );
}
