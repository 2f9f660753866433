// POST /widget/v1/chat: one visitor message, one reply from the agent's LLM. The first message
// (no sessionId) starts the session and fires widget.started.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentOfChat, appendReply, endChat } from "../../chats/runtime";
import type { AppEnv } from "../../context";
import { errorResponses, jsonBody, jsonResponse, publicSecurity } from "../../lib/openapi";
import { chatMessages, greetingOf, replyTurnOf, widgetReply } from "../../widgets/reply";
import { chatMessageSchema, chatReplySchema, widgetTokenQuery } from "../../widgets/schema";
import { appendVisitorMessage, startSession } from "../../widgets/sessions";
import { isPreview, limitVisitor, widgetOf } from "./gate";
import { agentOf, PUBLIC_TAG, requireChannel } from "./shared";

export const widgetChatRoute = createRoute({
  method: "post",
  path: "/chat",
  tags: [PUBLIC_TAG],
  operationId: "widgetChat",
  security: publicSecurity,
  summary: "Send a visitor's message and get the agent's reply",
  description:
    "Without `sessionId` the message starts a session (`widget.started`); with it, it continues that session, which must be this visitor's and in progress (409 session_ended otherwise). Rate-limited per visitor, per client address and per widget; metered to the workspace.",
  request: { query: widgetTokenQuery, ...jsonBody(chatMessageSchema) },
  responses: {
    200: jsonResponse(chatReplySchema, "The agent's reply and the session id."),
    ...errorResponses(400, 402, 403, 404, 409, 502, 504),
  },
});

export const registerWidgetChat = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(widgetChatRoute, async (c) => {
    const widget = widgetOf(c);
    requireChannel(widget, "chat", isPreview(c));
    const body = c.req.valid("json");
    await limitVisitor(c, widget, body.visitorId, true);
    const current = await agentOf(c, widget);
    const deps = c.var.services.webhooks;
    const message = { role: "user" as const, text: body.message, at: new Date().toISOString() };
    const session = body.sessionId
      ? await appendVisitorMessage(deps, widget, body.visitorId, body.sessionId, message)
      : await startSession(deps, {
          widget,
          running: current,
          visitorId: body.visitorId,
          origin: c.req.header("origin") ?? "",
          greeting: greetingOf(widget, current.agent),
          message,
        });
    const payer = { organizationId: widget.organizationId, chatId: session.id };
    // The chat's own version: a publish since it started does not change its replies.
    const { agent } = await agentOfChat(deps, session, current);
    const turn = await widgetReply(deps, payer, agent, chatMessages(agent, session.transcript));
    // The turn's tool turns, then the reply; nothing when the chat ended meanwhile (the visitor still gets the reply).
    await appendReply(deps, session.id, [...turn.turns, replyTurnOf(turn)]);
    if (turn.ended) await endChat(deps, session.id, "agent-ended");
    // One HTTP answer cannot send a tool's requestStart message ahead: it leads the reply's text
    // (the transcript keeps it as its own turn, before the tool turn).
    const text = [...turn.turns.filter((t) => t.role === "agent").map((t) => t.text), turn.text].join(" ");
    return c.json({ sessionId: session.id, started: !body.sessionId, ended: turn.ended, reply: { role: "agent" as const, text } }, 200);
  });
