import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { bearerSecurity, errorResponses, jsonResponse } from "../../../lib/openapi";
import { toWidgetView } from "../../../widgets/mapper";
import { listWidgetsQuerySchema, widgetPageSchema } from "../../../widgets/schema";
import { listWidgets } from "../../../widgets/service";
import { cdnOrigin } from "./shared";

export const listWidgetsRoute = createRoute({
  method: "get",
  path: "/widgets",
  readsAlongsideTheKeyCheck: true,
  tags: ["Widgets"],
  operationId: "listWidgets",
  summary: "List the workspace's widgets",
  description: "Newest first. See docs/pagination.md for the cursor contract.",
  security: bearerSecurity,
  request: { query: listWidgetsQuerySchema },
  responses: { 200: jsonResponse(widgetPageSchema, "A page of widgets."), ...errorResponses(400) },
});

export const registerListWidgets = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(listWidgetsRoute, async (c) => {
    const page = await listWidgets({ ctx: c.var.ctx, input: c.req.valid("query") });
    const origin = cdnOrigin(c);
    return c.json({ ...page, data: page.data.map((row) => toWidgetView(row, origin)) }, 200);
  });
