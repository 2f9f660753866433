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

export interface TtsProvider {
  readonly name: string;
  synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<ArrayBuffer>;
  /** The audio as it is made (pcm only: chunks may split a sample); `signal` cancels the request. */
  synthesizeStream(request: SpeechRequest, signal?: AbortSignal): AsyncIterable<Uint8Array>;
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
