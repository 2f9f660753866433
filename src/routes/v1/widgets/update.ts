import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonBody, jsonResponse } from "../../../lib/openapi";
import { toWidgetView } from "../../../widgets/mapper";
import { updateWidgetSchema, widgetSchema } from "../../../widgets/schema";
import { updateWidget, widgetNotFound } from "../../../widgets/service";
import { cdnOrigin } from "./shared";

export const updateWidgetRoute = createRoute({
  method: "patch",
  path: "/widgets/{id}",
  tags: ["Widgets"],
  operationId: "updateWidget",
  summary: "Update a widget",
  description:
    "Partial update with the create rules: only the fields sent change; `colors` sub-fields sent replace the current ones. Pages pick the change up on their next load; the token is unchanged.",
  security: bearerSecurity,
  request: { params: idParam("Widget"), ...jsonBody(updateWidgetSchema) },
  responses: { 200: jsonResponse(widgetSchema, "The updated widget."), ...errorResponses(400, 404) },
});

export const registerUpdateWidget = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(updateWidgetRoute, async (c) => {
    const row = await updateWidget({ ctx: c.var.ctx, input: { ...c.req.valid("json"), ...c.req.valid("param") } });
    if (!row) throw widgetNotFound();
    return c.json(toWidgetView(row, cdnOrigin(c)), 200);
  });
