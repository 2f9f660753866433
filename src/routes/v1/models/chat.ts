import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { complete, completionRoute } from "./shared";

export const chatRoute = completionRoute("/llm/chat", "chat", "Chat completion (non-streaming)");

export const registerChat = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(chatRoute, async (c) => c.json(await complete(c, c.req.valid("json")), 200));
