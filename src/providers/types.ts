// The provider ports, one per modality. Requests and responses follow the OpenAI API's
// shapes, which our Models API mirrors; each adapter translates from and to its provider.
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool" | "developer";
  content: string | null | Array<Record<string, unknown>>;
  name?: string;
  tool_calls?: Array<Record<string, unknown>>;
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string | string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  tools?: Array<Record<string, unknown>>;
  tool_choice?: unknown;
  response_format?: Record<string, unknown>;
  user?: string;
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: "assistant"; content: string | null; tool_calls?: Array<Record<string, unknown>> };
    finish_reason: string | null;
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** A tool call of a completion, in OpenAI's shape. */
export type ToolCallOut = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};

/**
 * One event of a streamed completion: a piece of the reply's text, then its end with the usage and
 * the tool calls the model made (assembled from their streamed pieces; empty when it made none).
 */
export type ChatStreamEvent =
  | { type: "delta"; text: string }
  | { type: "end"; finishReason: string | null; usage: ChatCompletion["usage"] | null; toolCalls: ToolCallOut[] };

export interface ChatProvider {
  readonly name: string;
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatCompletion>;
  /** The reply as it is generated; `signal` cancels the request (no retry after the first byte). */
  stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatStreamEvent>;
  /** The model ids the provider lists (GET /models), for pickers; a provider that lists none may leave it out. */
  models?(signal?: AbortSignal): Promise<string[]>;
}

export type AudioFormat = "wav" | "pcm" | "mp3";

export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = { wav: "audio/wav", pcm: "audio/pcm", mp3: "audio/mpeg" };

export interface SpeechRequest {
  text: string;
  /** The provider's own voice id (resolved from our voice). */
  voice: string;
  model: string;
  format: AudioFormat;
  speed?: number;
}

/**
 * Speech fed text as it comes (input streaming): one utterance, its audio (pcm) starting before all
 * of its text is known. `push` adds a piece (pieces are joined verbatim: keep their spaces), `end`
 * says no more will come, `audio` yields the speech in order and ends after the last piece is spoken.
 */
export interface SpeechStream {
  push(text: string): void;
  end(): void;
  audio: AsyncIterable<Uint8Array>;
}

export interface SpeechStreamOptions {
  /**
   * How long the provider may hold text back waiting for more before it speaks (ms; Cartesia's
   * `max_buffer_delay_ms`, 3000 by default). 0 when the caller sends whole clauses itself: each is
   * spoken at once.
   */
  bufferDelayMs?: number;
}

export interface TtsProvider {
  readonly name: string;
  synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<ArrayBuffer>;
  /** The audio as it is made (pcm only: chunks may split a sample); `signal` cancels the request. */
  synthesizeStream(request: SpeechRequest, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /**
   * Input streaming, for providers that take text as it is written (Cartesia's WebSocket contexts);
   * absent on the others, which speak whole sentences through `synthesizeStream`. `request.text` is
   * not spoken: the pushed pieces are. `signal` cancels the utterance (`audio` then throws).
   */
  openStream?(request: SpeechRequest, signal?: AbortSignal, options?: SpeechStreamOptions): Promise<SpeechStream>;
}

export interface TranscriptionRequest {
  audio: Blob;
  filename: string;
  model: string;
  language?: string;
}

export interface Transcription {
  text: string;
  language: string | null;
  durationSeconds: number | null;
  segments?: Array<{ start: number; end: number; text: string }>;
}

export interface SttProvider {
  readonly name: string;
  transcribe(request: TranscriptionRequest, signal?: AbortSignal): Promise<Transcription>;
}

/**
 * One event of a streaming transcription. Nova models (Deepgram `/v1/listen`) give `interim`,
 * `final` and `utterance-end`; Flux models (`/v2/listen`) give the turn events. `error` is the
 * provider failing after the stream was opened (a refused upgrade rejects `open` instead); it is
 * the stream's last event: the stream is closed when it arrives.
 */
export type SttStreamEvent =
  | { type: "interim"; text: string } // Nova: is_final=false results
  | { type: "final"; text: string; speechFinal: boolean } // Nova: is_final=true (speech_final from endpointing)
  | { type: "utterance-end" } // Nova: UtteranceEnd
  | { type: "start-of-turn" } // Flux TurnInfo StartOfTurn
  | { type: "update"; text: string } // Flux Update
  | { type: "eager-end-of-turn"; text: string; confidence?: number }
  | { type: "turn-resumed" }
  | { type: "end-of-turn"; text: string; confidence?: number }
  | { type: "error"; message: string };

export interface SttStreamOptions {
  model: string;
  sampleRate: number;
  encoding: "linear16";
  language?: string;
  /** Nova: silence that ends a segment with `speechFinal` (Deepgram's default is 10 ms). */
  endpointingMs?: number;
  /** Nova: silence after the last word that sends `utterance-end`. */
  utteranceEndMs?: number;
  /** Flux: the end-of-turn confidence for `eager-end-of-turn` (unset: none are sent). */
  eagerEotThreshold?: number;
  /** Flux: the end-of-turn confidence for `end-of-turn` (Deepgram's default 0.7). */
  eotThreshold?: number;
  /** Flux: silence after which the turn ends whatever the confidence (Deepgram's default 5000). */
  eotTimeoutMs?: number;
  /** Cancels the opening; once open, closes the stream at once (no CloseStream, no more events). */
  signal?: AbortSignal;
}

export interface SttStream {
  /** Mono 16-bit samples at the stream's rate; ignored once the stream is closed. */
  send(pcm: Int16Array): void;
  /** flush what was sent (Nova `Finalize`; Flux `ForceEndTurn`) */
  finalize(): void;
  /** `CloseStream`, then close; resolves with the seconds of audio the provider received (for metering) */
  close(): Promise<number>;
  readonly closed: boolean;
}

export interface StreamingSttProvider {
  readonly name: string;
  open(opts: SttStreamOptions, onEvent: (e: SttStreamEvent) => void): Promise<SttStream>;
}

/** Embeddings (OpenAI's POST /embeddings): one vector of `dimensions` numbers per input, in order. */
export interface EmbeddingRequest {
  model: string;
  input: string[];
  dimensions: number;
}

export interface Embeddings {
  vectors: number[][];
  /** What the provider counted (metered as tokens). */
  promptTokens: number;
}

export interface EmbeddingProvider {
  readonly name: string;
  embed(request: EmbeddingRequest, signal?: AbortSignal): Promise<Embeddings>;
}
