import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, idParam } from "../../../lib/openapi";
import { deleteWidget, widgetNotFound } from "../../../widgets/service";

export const deleteWidgetRoute = createRoute({
  method: "delete",
  path: "/widgets/{id}",
  tags: ["Widgets"],
  operationId: "deleteWidget",
  summary: "Delete a widget",
  description: "Its token stops at once. Its chat sessions (transcripts) are kept with the workspace.",
  security: bearerSecurity,
  request: { params: idParam("Widget") },
  responses: { 204: { description: "Deleted." }, ...errorResponses(400, 404) },
});

export const registerDeleteWidget = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(deleteWidgetRoute, async (c) => {
    if (!(await deleteWidget({ ctx: c.var.ctx, input: c.req.valid("param") }))) throw widgetNotFound();
    return c.body(null, 204);
  });
