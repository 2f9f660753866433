// Web widgets (issue 7's channels, created here for an agent), under /dashboard/widgets, one file
// per page operation: list, create, edit every field, the embed code, rotate the token, revoke,
// delete. The same schemas and service functions as /v1/widgets.
import { screenRouter } from "../../../dashboard/routers";
import { registerCreateWidgetPage } from "./create";
import { registerDeleteWidgetPage } from "./delete";
import { registerEditWidgetPage } from "./edit";
import { registerListWidgetsPage } from "./list";
import { registerNewWidgetPage } from "./new";
import { registerRevokeWidgetPage } from "./revoke";
import { registerRotateWidgetTokenPage } from "./rotate-token";
import { registerUpdateWidgetPage } from "./update";

export function widgetPages() {
  const app = screenRouter();
  registerListWidgetsPage(app);
  registerNewWidgetPage(app);
  registerCreateWidgetPage(app);
  registerEditWidgetPage(app);
  registerUpdateWidgetPage(app);
  registerRotateWidgetTokenPage(app);
  registerRevokeWidgetPage(app);
  registerDeleteWidgetPage(app);
  return app;
}
