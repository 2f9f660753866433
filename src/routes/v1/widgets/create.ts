import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonBody, jsonResponse } from "../../../lib/openapi";
import { toWidgetView } from "../../../widgets/mapper";
import { createWidgetSchema, widgetSchema } from "../../../widgets/schema";
import { createWidget } from "../../../widgets/service";
import { cdnOrigin } from "./shared";

export const createWidgetRoute = createRoute({
  method: "post",
  path: "/widgets",
  tags: ["Widgets"],
  operationId: "createWidget",
  summary: "Create a web widget channel for an agent",
  description:
    "Answers the widget with its token and `embedCode`, the one script tag to paste into a page. `agentId` and `allowedOrigins` are required; docs/widget.md.",
  security: bearerSecurity,
  request: jsonBody(createWidgetSchema),
  responses: { 201: jsonResponse(widgetSchema, "The created widget, with its token and embed code."), ...errorResponses(400, 404) },
});

export const registerCreateWidget = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(createWidgetRoute, async (c) => {
    const row = await createWidget({ ctx: c.var.ctx, input: c.req.valid("json") });
    c.header("Location", `/v1/widgets/${row.id}`);
    return c.json(toWidgetView(row, cdnOrigin(c)), 201);
  });
