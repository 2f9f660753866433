import type { OpenAPIHono } from "@hono/zod-openapi";
import { getChat } from "../../../chats/service";
import type { AppEnv } from "../../../context";
import { startReplayFrom } from "../agents/replays";
import { renderChatPage } from "./show";

/**
 * POST /dashboard/chats/:id/replay: replays the chat's user turns against the version chosen (the
 * agent-tests service's startReplay) and opens the replay's page; a refusal is told on the chat's
 * page. Another workspace's chat is the 404 page.
 */
export const registerReplayChatPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/replay", async (c) => {
    const { chat } = await getChat({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return startReplayFrom(c, { kind: "chat", id: chat.id, agentId: chat.agentId }, (notice, status) =>
      renderChatPage(c, chat.id, notice, status),
    );
  });
