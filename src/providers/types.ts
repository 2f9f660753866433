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

export interface ChatProvider {
  readonly name: string;
  complete(request: ChatRequest): Promise<ChatCompletion>;
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
  synthesize(request: SpeechRequest): Promise<ArrayBuffer>;
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
  transcribe(request: TranscriptionRequest): Promise<Transcription>;
}
