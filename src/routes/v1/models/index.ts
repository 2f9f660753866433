import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerChat } from "./chat";
import { registerStt } from "./stt";
import { registerTts } from "./tts";

/** The Models API (tts, stt, llm/chat, and the `openai` SDK's paths). */
export function registerModels(app: OpenAPIHono<AppEnv>): void {
  registerChat(app);
  registerTts(app);
  registerStt(app);
}
