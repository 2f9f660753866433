// The Models API (tts, stt, llm/chat, and the `openai` SDK's paths), one file per operation; what
// an operation and its `openai` SDK alias share (the metered completion, transcription and
// synthesis) is in shared.ts.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerAudioSpeech } from "./audio-speech";
import { registerAudioTranscriptions } from "./audio-transcriptions";
import { registerChat } from "./chat";
import { registerChatCompletions } from "./chat-completions";
import { registerStt } from "./stt";
import { registerTts } from "./tts";

export function registerModels(app: OpenAPIHono<AppEnv>): void {
  registerChat(app);
  registerChatCompletions(app);
  registerTts(app);
  registerAudioSpeech(app);
  registerStt(app);
  registerAudioTranscriptions(app);
}
