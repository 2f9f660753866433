import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerCreateWidget } from "./create";
import { registerDeleteWidget } from "./delete";
import { registerGetWidget } from "./get";
import { registerListWidgets } from "./list";
import { registerRevokeWidget } from "./revoke";
import { registerRotateWidgetToken } from "./rotate-token";
import { registerUpdateWidget } from "./update";

/** /v1/widgets: the integrators' copy of the dashboard's widget screen (docs/widget.md). */
export function registerWidgets(app: OpenAPIHono<AppEnv>): void {
  registerListWidgets(app);
  registerCreateWidget(app);
  registerGetWidget(app);
  registerUpdateWidget(app);
  registerDeleteWidget(app);
  registerRotateWidgetToken(app);
  registerRevokeWidget(app);
}
