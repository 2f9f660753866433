// The embeddable widget's public routes (/widget/v1/*), registered before the /v1 auth: each
// passes the widget gate (per-address limit, token, allowed origin, CORS; gate.ts). The
// authenticated /v1/widgets operations are registered with the rest of /v1 (src/routes/v1).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { widgetGate } from "./gate";
import { registerWidgetChat } from "./public/chat";
import { registerWidgetConfig } from "./public/config";
import { registerWidgetEndSession } from "./public/end";
import { registerWidgetWebCall } from "./public/web-call";

export function registerWidgetRoutes(app: OpenAPIHono<AppEnv>): void {
  // Bodies: at most WIDGET_BODY_LIMIT (16 KiB), by the input guard every request passes (src/app.ts).
  app.use("/widget/v1/*", widgetGate);
  registerWidgetConfig(app);
  registerWidgetChat(app);
  registerWidgetEndSession(app);
  registerWidgetWebCall(app);
}
