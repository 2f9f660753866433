// GET /widget/v1/config: what the script needs to render (no session is created by opening it).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { errorResponses, jsonResponse, publicSecurity } from "../../lib/openapi";
import { greetingOf } from "../../widgets/reply";
import { publicConfigSchema, widgetTokenQuery } from "../../widgets/schema";
import { widgetOf } from "./gate";
import { agentOf, PUBLIC_TAG } from "./shared";

export const widgetConfigRoute = createRoute({
  method: "get",
  path: "/config",
  tags: [PUBLIC_TAG],
  operationId: "widgetConfig",
  security: publicSecurity,
  summary: "The widget's public settings, for the embedded script",
  description:
    "No API key: the widget token in the query, from a page on one of the widget's allowed origins (CORS). Reveals no prompt, key or other data of the workspace.",
  request: { query: widgetTokenQuery },
  responses: { 200: jsonResponse(publicConfigSchema, "Mode, title, greeting, colours and position."), ...errorResponses(403) },
});

export const registerWidgetConfig = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(widgetConfigRoute, async (c) => {
    const widget = widgetOf(c);
    const { agent } = await agentOf(c, widget);
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        widgetId: widget.id,
        mode: widget.mode,
        title: widget.title ?? agent.name,
        greeting: greetingOf(widget, agent),
        colors: widget.colors,
        position: widget.position,
      },
      200,
    );
  });
