// POST /widget/v1/web-call: the voice side. A web call (docs/calls.md) with the widget's agent;
// the script opens the one-time socket, streams the microphone and plays the agent.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { startWebCall } from "../../calls/place";
import type { AppEnv } from "../../context";
import { errorResponses, jsonBody, jsonResponse, publicSecurity } from "../../lib/openapi";
import { publicWebCallSchema, visitorBodySchema, widgetTokenQuery } from "../../widgets/schema";
import { isPreview, limitVisitor, widgetOf } from "./gate";
import { agentOf, PUBLIC_TAG, requireChannel } from "./shared";

export const widgetWebCallRoute = createRoute({
  method: "post",
  path: "/web-call",
  tags: [PUBLIC_TAG],
  operationId: "widgetWebCall",
  security: publicSecurity,
  summary: "Start a voice session (web call) from the widget",
  description:
    "For widgets in `voice` or `both` mode. Answers a one-time WebSocket URL (the web-call protocol of docs/calls.md); the call fires the `call.*` webhooks. Rate-limited per visitor, per client address and per widget.",
  request: { query: widgetTokenQuery, ...jsonBody(visitorBodySchema) },
  responses: { 201: jsonResponse(publicWebCallSchema, "How to join the call."), ...errorResponses(400, 402, 403) },
});

export const registerWidgetWebCall = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(widgetWebCallRoute, async (c) => {
    const widget = widgetOf(c);
    requireChannel(widget, "voice", isPreview(c));
    const { visitorId } = c.req.valid("json");
    await limitVisitor(c, widget, visitorId, true);
    const { agent, version } = await agentOf(c, widget);
    const { services } = c.var;
    const session = await startWebCall({
      // The widget's workspace: the token named it (no API key, no session).
      ctx: {
        ...services.webhooks,
        organizationId: widget.organizationId,
        publicOrigin: services.publicOrigin,
        callSessions: services.callSessions,
      },
      input: {
        agent,
        agentVersion: version,
        metadata: {
          source: "widget",
          widgetId: widget.id,
          visitorId,
          origin: c.req.header("origin") ?? null,
          ...(isPreview(c) && { preview: true }),
        },
      },
    });
    return c.json(
      {
        callId: session.call.id,
        url: session.url,
        expiresAt: session.expiresAt.toISOString(),
        sampleRate: 16_000 as const,
        encoding: "pcm_s16le" as const,
      },
      201,
    );
  });
