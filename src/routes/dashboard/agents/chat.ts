import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { agentToRun } from "../../../agents/versions";
import type { AppEnv } from "../../../context";
import { one } from "../../../dashboard/forms";
import { scriptAction } from "../../../dashboard/json";
import { invalidInput } from "../../../lib/errors";
import { HISTORY_TURNS, testChatReply } from "../../../widgets/reply";
import { ownAgent, versionTried } from "./shared";

/** The longest message the test chat takes (the widget's chat takes as much). */
export const TEST_CHAT_MESSAGE_MAX = 2_000;
/** The longest earlier turn the page may send back (a reply is at most 500 tokens). */
const TURN_MAX = 4_000;

const fields = z.object({
  conversationId: z.uuid({ message: "conversationId must be a UUID (the page makes one)" }),
  message: z
    .string()
    .trim()
    .min(1, { message: "Type a message." })
    .max(TEST_CHAT_MESSAGE_MAX, { message: `A message is at most ${TEST_CHAT_MESSAGE_MAX} characters.` }),
  history: z
    .array(z.strictObject({ role: z.enum(["user", "agent"]), text: z.string().max(TURN_MAX) }))
    .max(HISTORY_TURNS, { message: `history holds at most the last ${HISTORY_TURNS} turns` }),
});

/**
 * POST /dashboard/agents/:id/chat: one message of the agent page's test chat, and the agent's
 * reply (widgets/reply.ts `testChatReply`: the widget chat's prompt, tools and metering; nothing
 * stored). Form fields `conversationId`, `message`, `history` (JSON: the page's earlier user and
 * agent turns, the last 40), `agentVersion` (the version tried; empty: the live one). Answers `{ reply, tools, ended }` in JSON; errors in the error body.
 */
export const registerAgentTestChatAction = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/chat", (c) =>
    scriptAction(c, async () => {
      const form = c.var.form ?? {};
      let history: unknown;
      try {
        history = JSON.parse(one(form, "history") || "[]");
      } catch {
        throw invalidInput("form", [{ path: ["history"], message: "history must be a JSON array of {role, text} turns." }]);
      }
      const checked = fields.safeParse({ conversationId: one(form, "conversationId"), message: one(form, "message"), history });
      if (!checked.success) throw invalidInput("form", checked.error.issues);
      const { agent } = await agentToRun({
        ctx: c.var.ctx,
        input: { agent: await ownAgent(c, c.req.param("id")), version: versionTried(c) },
      });
      const turn = await testChatReply({ ctx: c.var.ctx, input: { agent, ...checked.data } });
      const tools = turn.turns.filter((t) => t.role === "tool").map((t) => t.text);
      // A tool's requestStart message leads the reply's text, as in the widget's chat.
      const said = turn.turns.filter((t) => t.role === "agent").map((t) => t.text);
      return c.json({ reply: [...said, turn.text].join(" "), tools, ended: turn.ended }, 200);
    }),
  );
