import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { complete, completionRoute } from "./shared";

export const chatCompletionsRoute = completionRoute(
  "/chat/completions",
  "chatCompletions",
  "Chat completion at the OpenAI SDK's path (alias of /v1/llm/chat)",
);

export const registerChatCompletions = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(chatCompletionsRoute, async (c) => c.json(await complete(c, c.req.valid("json")), 200));
