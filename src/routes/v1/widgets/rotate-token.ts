import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { toWidgetView } from "../../../widgets/mapper";
import { widgetSchema } from "../../../widgets/schema";
import { rotateWidgetToken, widgetNotFound } from "../../../widgets/service";
import { cdnOrigin } from "./shared";

export const rotateWidgetTokenRoute = createRoute({
  method: "post",
  path: "/widgets/{id}/rotate-token",
  tags: ["Widgets"],
  operationId: "rotateWidgetToken",
  summary: "Give a widget a new token",
  description:
    "The old token stops at once: update the embed code on your pages. Rotating a revoked widget reactivates it under the new token.",
  security: bearerSecurity,
  request: { params: idParam("Widget") },
  responses: { 200: jsonResponse(widgetSchema, "The widget with its new token and embed code."), ...errorResponses(400, 404) },
});

export const registerRotateWidgetToken = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(rotateWidgetTokenRoute, async (c) => {
    const row = await rotateWidgetToken({ ctx: c.var.ctx, input: c.req.valid("param") });
    if (!row) throw widgetNotFound();
    return c.json(toWidgetView(row, cdnOrigin(c)), 200);
  });
