// Usage (everyone), at /dashboard/usage: the same report as GET /v1/usage, over the last 30 days.
import { screenRouter } from "../../../dashboard/routers";
import { registerUsagePage } from "./show";

export function usagePages() {
  const app = screenRouter();
  registerUsagePage(app);
  return app;
}
