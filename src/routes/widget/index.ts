// The embeddable widget's public surface: one router mounted at /widget/v1 (src/app.ts), its
// paths relative to it. Every route passes the widget gate (per-address limit, token, allowed
// origin, CORS; gate.ts); no API key. The authenticated /v1/widgets operations are in the /v1
// surface (src/routes/v1). Bodies: at most WIDGET_BODY_LIMIT (16 KiB), by the input guard every
// request passes (src/middleware/guards.ts).
import { createRouter } from "../../context";
import { registerWidgetChat } from "./chat";
import { registerWidgetConfig } from "./config";
import { registerWidgetEndSession } from "./end";
import { widgetGate } from "./gate";
import { registerWidgetWebCall } from "./web-call";

export const WIDGET_API_BASE = "/widget/v1";

export function widgetRoutes() {
  const widget = createRouter();
  widget.use("*", widgetGate);
  registerWidgetConfig(widget);
  registerWidgetChat(widget);
  registerWidgetEndSession(widget);
  registerWidgetWebCall(widget);
  return widget;
}
