// ElevenLabs text-to-speech (POST /v1/text-to-speech/{voice_id}, `xi-api-key`). It returns
// MP3 or raw PCM; WAV is PCM wrapped in a header here.
import { pcmToWav } from "../lib/audio";
import { type CallOptions, ProviderError, providerFetch, readChunks } from "./http";
import type { SpeechRequest, TtsProvider } from "./types";

const PCM_RATE = 24000;

export class ElevenLabs implements TtsProvider {
  readonly name = "elevenlabs";

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly call: CallOptions,
  ) {}

  /** `POST /v1/text-to-speech/{voice_id}/stream`: the audio in chunks as it is made (raw PCM at 24 kHz). */
  async *synthesizeStream(request: SpeechRequest, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
    if (request.format !== "pcm") throw new ProviderError("rejected", "elevenlabs streams pcm only here");
    const url = `${this.baseUrl.replace(/\/$/, "")}/v1/text-to-speech/${encodeURIComponent(request.voice)}/stream?output_format=pcm_${PCM_RATE}`;
    const res = await providerFetch(
      this.name,
      url,
      {
        method: "POST",
        headers: { "xi-api-key": this.apiKey, "content-type": "application/json", accept: "*/*" },
        body: JSON.stringify(this.body(request)),
        signal,
      },
      this.call,
    );
    let bytes = 0;
    for await (const chunk of readChunks(this.name, res, signal)) {
      bytes += chunk.length;
      yield chunk;
    }
    if (bytes === 0) throw new ProviderError("bad_response", "elevenlabs answered empty audio");
  }

  private body(request: SpeechRequest) {
    return {
      text: request.text,
      model_id: request.model,
      ...(request.speed ? { voice_settings: { speed: Math.min(1.2, Math.max(0.7, request.speed)) } } : {}),
    };
  }

  async synthesize(request: SpeechRequest, signal?: AbortSignal): Promise<ArrayBuffer> {
    const outputFormat = request.format === "mp3" ? "mp3_44100_128" : `pcm_${PCM_RATE}`;
    const url = `${this.baseUrl.replace(/\/$/, "")}/v1/text-to-speech/${encodeURIComponent(request.voice)}?output_format=${outputFormat}`;
    const body = this.body(request);
    const res = await providerFetch(
      this.name,
      url,
      {
        method: "POST",
        headers: { "xi-api-key": this.apiKey, "content-type": "application/json", accept: "*/*" },
        body: JSON.stringify(body),
        signal,
      },
      this.call,
    );
    const audio = new Uint8Array(await res.arrayBuffer());
    if (audio.length === 0) throw new ProviderError("bad_response", "elevenlabs answered empty audio");
    if (request.format !== "wav") return audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.byteLength) as ArrayBuffer;
    const wav = pcmToWav(audio, PCM_RATE);
    return wav.buffer.slice(wav.byteOffset, wav.byteOffset + wav.byteLength) as ArrayBuffer;
  }
}
