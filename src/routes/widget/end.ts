// POST /widget/v1/sessions/:id/end: the visitor closed the widget (or left the page: the script
// sends it with navigator.sendBeacon, whose body is text/plain, so both types are accepted).
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { ApiError } from "../../lib/errors";
import { errorResponses, publicSecurity } from "../../lib/openapi";
import { visitorBodySchema, widgetTokenQuery } from "../../widgets/schema";
import { endVisitorSession } from "../../widgets/sessions";
import { limitVisitor, widgetOf } from "./gate";
import { PUBLIC_TAG } from "./shared";

export const widgetEndSessionRoute = createRoute({
  method: "post",
  path: "/sessions/{id}/end",
  tags: [PUBLIC_TAG],
  operationId: "widgetEndSession",
  security: publicSecurity,
  summary: "End a visitor's chat session (widget.completed with the transcript)",
  description:
    "204 whether this ended the session or it was already over; 404 when it is not this visitor's session on this widget. The body is JSON, sent as application/json or text/plain (navigator.sendBeacon).",
  request: {
    params: z.object({ id: z.uuid({ message: "session id must be a UUID" }).openapi({ param: { name: "id", in: "path" } }) }),
    query: widgetTokenQuery,
    body: {
      required: false,
      content: {
        "application/json": { schema: visitorBodySchema },
        "text/plain": { schema: z.string().openapi({ description: "The same JSON as text." }) },
      },
    },
  },
  responses: { 204: { description: "Ended (or already over)." }, ...errorResponses(400, 403, 404, 415) },
});

async function visitorOf(raw: string): Promise<string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError("invalid_json", "The request body is not valid JSON.");
  }
  const result = visitorBodySchema.safeParse(parsed);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));
    throw new ApiError("validation_failed", `Invalid json: ${issues[0]?.path}: ${issues[0]?.message}`, { issues });
  }
  return result.data.visitorId;
}

export const registerWidgetEndSession = (app: OpenAPIHono<AppEnv>) =>
  app.openapi(widgetEndSessionRoute, async (c) => {
    const widget = widgetOf(c);
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json" && type !== "text/plain") {
      throw new ApiError("unsupported_media_type", "Send the body as application/json or text/plain.");
    }
    const visitorId = await visitorOf(await c.req.text());
    await limitVisitor(c, widget, visitorId, false);
    await endVisitorSession(c.var.services.webhooks, widget, visitorId, c.req.valid("param").id);
    return c.body(null, 204);
  });
