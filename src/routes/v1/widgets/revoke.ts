import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam, jsonResponse } from "../../../lib/openapi";
import { toWidgetView } from "../../../widgets/mapper";
import { widgetSchema } from "../../../widgets/schema";
import { revokeWidget, widgetNotFound } from "../../../widgets/service";
import { cdnOrigin } from "./shared";

export const revokeWidgetRoute = createRoute({
  method: "post",
  path: "/widgets/{id}/revoke",
  tags: ["Widgets"],
  operationId: "revokeWidget",
  summary: "Revoke a widget's token",
  description:
    "The token stops at once (the widget's public routes answer 401 and the script renders nothing). The widget and its sessions are kept; 409 when already revoked.",
  security: bearerSecurity,
  request: { params: idParam("Widget") },
  responses: { 200: jsonResponse(widgetSchema, "The revoked widget."), ...errorResponses(400, 404, 409) },
});

export const registerRevokeWidget = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(revokeWidgetRoute, async (c) => {
    const row = await revokeWidget({ ctx: c.var.ctx, input: c.req.valid("param") });
    if (!row) throw widgetNotFound();
    return c.json(toWidgetView(row, cdnOrigin(c)), 200);
  });
