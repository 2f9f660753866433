import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { agentParam, startReplaySchema, testRunSchema } from "../../../agent-tests/schema";
import { startReplay } from "../../../agent-tests/service";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { shownRun, TAG } from "./shared";

export const replayAgentRoute = createRoute({
  method: "post",
  path: "/agents/{id}/replays",
  tags: TAG,
  operationId: "replayAgentConversation",
  summary: "Replay a call or chat",
  description:
    "Queues a replay of one of the agent's past calls or chats against a version (default: the live one) and answers 202 " +
    "at once with the run (mode `replay`). In the background the recorded caller turns are said again, in order (as text, or with `mode: voice` spoken " +
    "through a web call), and each " +
    "new reply is compared with the recorded one (`replay.turns`, `replay.differingTurns`); then the judge reads the " +
    "replayed conversation. Poll GET /v1/agents/{id}/test-runs/{runId}, or listen for `test_run.completed`. 404 when the " +
    "call or chat is not this agent's; 429 `test_runs_limit` when the workspace has too many runs queued or running.",
  security: bearerSecurity,
  request: {
    params: agentParam,
    body: { required: true, content: { "application/json": { schema: startReplaySchema } } },
  },
  responses: { 202: jsonResponse(testRunSchema, "The replay, queued."), ...errorResponses(400, 404, 429) },
});

export const registerReplayAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(replayAgentRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const source = body.callId ? { kind: "call" as const, id: body.callId } : { kind: "chat" as const, id: body.chatId as string };
    const started = await startReplay({
      ctx: c.var.ctx,
      input: { agentId: id, source, version: body.version, criteria: body.criteria, mode: body.mode },
    });
    return c.json(shownRun(started), 202);
  });
