import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { toAgent } from "../../../../agents/mapper";
import { agentSchema } from "../../../../agents/schema";
import { publishAgentVersion } from "../../../../agents/versions";
import { publishAgentSchema } from "../../../../agents/versions-schema";
import type { AppEnv } from "../../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../../lib/openapi";
import { emptyBodyIsNone } from "../../../../middleware/guards";

export const publishAgentRoute = createRoute({
  method: "post",
  path: "/agents/{id}/publish",
  tags: ["Agents"],
  operationId: "publishAgentVersion",
  summary: "Make a version of an agent live",
  description:
    "The version (default: the newest) becomes the one calls, chats and campaigns run with; the agent takes its configuration. The body is optional.",
  security: bearerSecurity,
  middleware: [emptyBodyIsNone] as const,
  request: {
    params: idParam("Agent"),
    body: { required: false, content: { "application/json": { schema: publishAgentSchema } } },
  },
  responses: { 200: jsonResponse(agentSchema, "The agent, now live at that version."), ...errorResponses(400, 404) },
});

export const registerPublishAgent = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(publishAgentRoute, async (c) => {
    const { version } = c.req.valid("json") ?? {};
    const saved = await publishAgentVersion({ ctx: c.var.ctx, input: { agentId: c.req.valid("param").id, version } });
    return c.json(toAgent(saved.agent, saved.toolSecret), 200);
  });
