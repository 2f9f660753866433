// The OpenAI-compatible adapter: OpenAI itself, and every server that speaks its API (Groq,
// Together, vLLM, Ollama, LM Studio… and our local sandbox). Chat, speech and transcription.
import { z } from "zod";
import { type CallOptions, ProviderError, providerFetch, readChunks, readJson, readSse } from "./http";
import type {
  ChatCompletion,
  ChatProvider,
  ChatRequest,
  ChatStreamEvent,
  EmbeddingProvider,
  EmbeddingRequest,
  Embeddings,
  SpeechRequest,
  SttProvider,
  ToolCallOut,
  Transcription,
  TranscriptionRequest,
  TtsProvider,
} from "./types";

const completionSchema = z.object({
  id: z.string(),
  created: z.number(),
  model: z.string(),
  choices: z
    .array(
      z.object({
        index: z.number(),
        message: z.object({
          role: z.literal("assistant"),
          content: z.string().nullable(),
          tool_calls: z.array(z.record(z.string(), z.unknown())).optional(),
        }),
        finish_reason: z.string().nullable(),
      }),
    )
    .min(1),
  usage: z.object({
    prompt_tokens: z.number().int().min(0),
    completion_tokens: z.number().int().min(0),
    total_tokens: z.number().int().min(0),
  }),
});

const usageSchema = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0),
});

/** A chunk of a streamed completion (`chat.completion.chunk`): what we read of it. */
const chunkSchema = z.object({
  choices: z.array(
    z.object({
      index: z.number(),
      delta: z
        .object({
          content: z.string().nullish(),
          // A tool call arrives in pieces keyed by `index`: its id and name first, then its arguments' text.
          tool_calls: z
            .array(
              z.object({
                index: z.number().int().min(0),
                id: z.string().nullish(),
                function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
              }),
            )
            .nullish(),
        })
        .passthrough()
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema.nullish(),
});

const transcriptionSchema = z.object({
  text: z.string(),
  language: z.string().nullish(),
  duration: z.number().nullish(),
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() })).nullish(),
});

const MODELS_TTL_MS = 5 * 60_000;
const listedModels = new Map<string, { ids: string[]; at: number }>();
const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })).max(1_000) });

const embeddingListSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z.object({ prompt_tokens: z.number().int().min(0) }),
});

export class OpenAICompatible implements ChatProvider, TtsProvider, SttProvider, EmbeddingProvider {
  readonly name: string;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly call: CallOptions,
    name = "openai-compatible",
  ) {
    this.name = name;
  }

  private headers(json = true): Record<string, string> {
    return { authorization: `Bearer ${this.apiKey}`, ...(json ? { "content-type": "application/json" } : {}) };
  }

  private url(path: string) {
    return `${this.baseUrl.replace(/\/$/, "")}${path}`;
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatCompletion> {
    const res = await providerFetch(
      this.name,
      this.url("/chat/completions"),
      { method: "POST", headers: this.headers(), body: JSON.stringify({ ...request, stream: false }), signal },
      this.call,
    );
    const parsed = completionSchema.safeParse(await readJson(this.name, res));
    if (!parsed.success) throw new ProviderError("bad_response", `${this.name} answered a chat completion we cannot read`);
    return { ...parsed.data, object: "chat.completion" };
  }

  /**
   * The ids GET /models lists, sorted; remembered per base URL for MODELS_TTL_MS (a form shows
   * them on every render). Not metered: it uses nothing.
   */
  async models(signal?: AbortSignal): Promise<string[]> {
    const known = listedModels.get(this.baseUrl);
    if (known && known.at > Date.now() - MODELS_TTL_MS) return known.ids;
    const res = await providerFetch(this.name, this.url("/models"), { headers: this.headers(false), signal }, this.call);
    const parsed = modelListSchema.safeParse(await readJson(this.name, res));
    if (!parsed.success) throw new ProviderError("bad_response", `${this.name} answered a model list we cannot read`);
    const ids = parsed.data.data.map((m) => m.id).sort();
    listedModels.set(this.baseUrl, { ids, at: Date.now() });
    return ids;
  }

  /** `stream: true` with the usage in the last chunk (`stream_options.include_usage`), as OpenAI sends it. */
  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    const res = await providerFetch(
      this.name,
      this.url("/chat/completions"),
      {
        method: "POST",
        headers: this.headers(),
        body: JSON.stringify({ ...request, stream: true, stream_options: { include_usage: true } }),
        signal,
      },
      this.call,
    );
    let finishReason: string | null = null;
    let usage: ChatCompletion["usage"] | null = null;
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for await (const data of readSse(this.name, res, signal)) {
      if (data === "[DONE]") {
        const toolCalls: ToolCallOut[] = calls
          .filter((c) => c?.name)
          .map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
        yield { type: "end", finishReason, usage, toolCalls };
        return;
      }
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw new ProviderError("bad_response", `${this.name} streamed an event that is not JSON`);
      }
      const chunk = chunkSchema.safeParse(json);
      if (!chunk.success) throw new ProviderError("bad_response", `${this.name} streamed a chunk we cannot read`);
      const choice = chunk.data.choices.find((c) => c.index === 0);
      if (choice?.delta?.content) yield { type: "delta", text: choice.delta.content };
      for (const piece of choice?.delta?.tool_calls ?? []) {
        if (piece.index >= 64) throw new ProviderError("bad_response", `${this.name} streamed more tool calls than we read`);
        calls[piece.index] ??= { id: "", name: "", arguments: "" };
        const call = calls[piece.index] as { id: string; name: string; arguments: string };
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      if (chunk.data.usage) usage = chunk.data.usage;
    }
    throw new ProviderError("upstream", `${this.name} ended its stream before [DONE]`);
  }

  private speechBody(request: SpeechRequest) {
    return {
      model: request.model,
      input: request.text,
      voice: request.voice,
      response_format: request.format,
      ...(request.speed ? { speed: request.speed } : {}),
    };
  }

  /** OpenAI's speech comes with chunked transfer encoding as it is made: the same request, read as it arrives. */
  async *synthesizeStream(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    const res = await providerFetch(
      this.name,
      this.url("/audio/speech"),
      { method: "POST", headers: this.headers(), body: JSON.stringify(this.speechBody(request)), signal },
      this.call,
    );
    let bytes = 0;
    for await (const chunk of readChunks(this.name, res, signal)) {
      bytes += chunk.length;
      yield chunk;
    }
    if (bytes === 0) throw new ProviderError("bad_response", `${this.name} answered empty audio`);
  }

  async synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<ArrayBuffer> {
    const res = await providerFetch(
      this.name,
      this.url("/audio/speech"),
      { method: "POST", headers: this.headers(), body: JSON.stringify(this.speechBody(request)), signal },
      this.call,
    );
    const audio = await res.arrayBuffer();
    if (audio.byteLength === 0) throw new ProviderError("bad_response", `${this.name} answered empty audio`);
    return audio;
  }

  async transcribe(request: TranscriptionRequest, signal?: AbortSignal): Promise<Transcription> {
    const form = new FormData();
    form.set("file", request.audio, request.filename);
    form.set("model", request.model);
    form.set("response_format", "verbose_json");
    if (request.language) form.set("language", request.language);
    const res = await providerFetch(
      this.name,
      this.url("/audio/transcriptions"),
      { method: "POST", headers: this.headers(false), body: form, signal },
      this.call,
    );
    const parsed = transcriptionSchema.safeParse(await readJson(this.name, res));
    if (!parsed.success) throw new ProviderError("bad_response", `${this.name} answered a transcription we cannot read`);
    const t = parsed.data;
    return {
      text: t.text,
      language: t.language ?? request.language ?? null,
      durationSeconds: t.duration ?? null,
      ...(t.segments ? { segments: t.segments.map((s) => ({ start: s.start, end: s.end, text: s.text })) } : {}),
    };
  }

  /** OpenAI's POST /embeddings, the vectors in the inputs' order, each checked to have the width asked for. */
  async embed(request: EmbeddingRequest, signal?: AbortSignal): Promise<Embeddings> {
    const res = await providerFetch(
      this.name,
      this.url("/embeddings"),
      {
        method: "POST",
        headers: this.headers(),
        body: JSON.stringify({ model: request.model, input: request.input, dimensions: request.dimensions, encoding_format: "float" }),
        signal,
      },
      this.call,
    );
    const parsed = embeddingListSchema.safeParse(await readJson(this.name, res));
    if (!parsed.success) throw new ProviderError("bad_response", `${this.name} answered embeddings we cannot read`);
    const vectors = new Array<number[]>(request.input.length);
    for (const item of parsed.data.data) if (item.index < vectors.length) vectors[item.index] = item.embedding;
    for (const v of vectors)
      if (!v || v.length !== request.dimensions)
        throw new ProviderError(
          "bad_response",
          `${this.name} answered embeddings that do not match the inputs (${request.dimensions} numbers each)`,
        );
    return { vectors, promptTokens: parsed.data.usage.prompt_tokens };
  }
}
