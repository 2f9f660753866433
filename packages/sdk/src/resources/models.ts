// The Models API: chat, text to speech and speech to text, metered in credits; our paths and
// the `openai` SDK's (chat.completions, audio.speech, audio.transcriptions). The `openai` SDK
// pointed at `${baseURL}/v1` works too (docs/models.md). A 5xx here is retried: the server
// charges nothing for a failed call; a network failure is not, since the call may have run.
import type { RequestOptions } from "../core.js";
import { type PageBody, PagePromise } from "../pagination.js";
import type {
  ChatCompletion,
  ChatCreateParams,
  ResponseOf,
  SpeechCreateParams,
  Transcription,
  TtsCreateParams,
  Usage,
  UsageEvent,
  UsageParams,
} from "../types.js";
import { Resource } from "./resource.js";

/** Audio to upload: a Blob or File (browsers, Workers, Node 20+), or bytes (a Node Buffer, a Uint8Array, an ArrayBuffer). */
export type Uploadable = Blob | ArrayBuffer | ArrayBufferView;

export interface SttCreateParams {
  file: Uploadable;
  /** The file name sent with the upload (default: the File's name, else `audio.wav`); its extension hints the format. */
  filename?: string;
  model?: string;
  /** BCP 47 language of the speech, e.g. `en` or `pt-BR`. */
  language?: string;
}

export interface TranscriptionCreateParams {
  file: Uploadable;
  filename?: string;
  model: string;
  language?: string;
  prompt?: string;
  temperature?: number | null;
  response_format?: "json" | "text" | "verbose_json";
}

export function toBlob(file: Uploadable): Blob {
  if (file instanceof Blob) return file;
  if (file instanceof ArrayBuffer) return new Blob([file]);
  if (ArrayBuffer.isView(file)) return new Blob([new Uint8Array(file.buffer, file.byteOffset, file.byteLength) as Uint8Array<ArrayBuffer>]);
  throw new TypeError("file must be a Blob, File, ArrayBuffer, Uint8Array or Buffer");
}

function form(params: { file: Uploadable; filename?: string } & Record<string, unknown>): FormData {
  const data = new FormData();
  const { file, filename, ...fields } = params;
  const name = filename ?? (typeof File !== "undefined" && file instanceof File && file.name ? file.name : "audio.wav");
  data.append("file", toBlob(file), name);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) data.append(k, String(v));
  return data;
}

export class ChatCompletions extends Resource {
  /** The `openai` SDK's path, `POST /v1/chat/completions` (non-streaming). */
  create(body: ChatCreateParams, options?: RequestOptions): Promise<ChatCompletion> {
    return this.call({ operation: "chatCompletions", body }, options);
  }
}

export class ChatModels extends Resource {
  readonly completions = new ChatCompletions(this.client);

  /** A chat completion, `POST /v1/llm/chat` (non-streaming; `stream: true` is refused). */
  create(body: ChatCreateParams, options?: RequestOptions): Promise<ChatCompletion> {
    return this.call({ operation: "chat", body }, options);
  }
}

export class Tts extends Resource {
  /** Speech for `text` in the voice: the whole audio file (wav by default, or pcm / mp3 as `format` says). */
  create(body: TtsCreateParams, options?: RequestOptions): Promise<Uint8Array> {
    return this.call({ operation: "tts", body, expect: "bytes" }, options);
  }
}

export class Stt extends Resource {
  /** The transcription of an audio upload. */
  create(params: SttCreateParams, options?: RequestOptions): Promise<Transcription> {
    return this.call({ operation: "stt", form: form({ ...params }) }, options);
  }
}

export class Speech extends Resource {
  /** OpenAI's `audio.speech.create` shape (`voice`: one of our voice ids, or a name such as alloy). */
  create(body: SpeechCreateParams, options?: RequestOptions): Promise<Uint8Array> {
    return this.call({ operation: "audioSpeech", body, expect: "bytes" }, options);
  }
}

export class Transcriptions extends Resource {
  /** OpenAI's `audio.transcriptions.create` shape; `response_format: "text"` answers a string. */
  create(params: TranscriptionCreateParams & { response_format: "text" }, options?: RequestOptions): Promise<string>;
  create(params: TranscriptionCreateParams, options?: RequestOptions): Promise<ResponseOf<"audioTranscriptions">>;
  create(params: TranscriptionCreateParams, options?: RequestOptions): Promise<ResponseOf<"audioTranscriptions"> | string> {
    return this.call({ operation: "audioTranscriptions", form: form({ ...params }) }, options);
  }
}

export class Audio extends Resource {
  readonly speech = new Speech(this.client);
  readonly transcriptions = new Transcriptions(this.client);
}

export class UsageResource extends Resource {
  /** Credits left, prices, daily totals, and the first page of the Models request log. */
  retrieve(query?: UsageParams, options?: RequestOptions): Promise<Usage> {
    return this.call({ operation: "usage", query }, options);
  }

  /** The Models request log alone, newest first, as pages (`for await` walks them all). */
  listEvents(query: UsageParams = {}, options?: RequestOptions): PagePromise<UsageEvent> {
    const { cursor, ...filters } = query;
    return new PagePromise<UsageEvent>(
      async (next) => (await this.retrieve({ ...filters, cursor: next }, options)).requests as PageBody<UsageEvent>,
      cursor,
    );
  }
}
