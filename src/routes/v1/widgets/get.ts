import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { toWidgetView } from "../../../widgets/mapper";
import { widgetSchema } from "../../../widgets/schema";
import { getWidget, widgetNotFound } from "../../../widgets/service";
import { cdnOrigin } from "./shared";

export const getWidgetRoute = createRoute({
  method: "get",
  path: "/widgets/{id}",
  readsAlongsideTheKeyCheck: true,
  tags: ["Widgets"],
  operationId: "getWidget",
  summary: "Fetch a widget (with its token and embed code)",
  security: bearerSecurity,
  request: { params: idParam("Widget") },
  responses: { 200: jsonResponse(widgetSchema, "The widget."), ...errorResponses(400, 404) },
});

export const registerGetWidget = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(getWidgetRoute, async (c) => {
    const row = await getWidget({ ctx: c.var.ctx, input: c.req.valid("param") });
    if (!row) throw widgetNotFound();
    return c.json(toWidgetView(row, cdnOrigin(c)), 200);
  });
