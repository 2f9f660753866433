// The dashboard's root, /dashboard: the Overview of the workspace's last 30 days.
import { createRouter } from "../../../context";
import { signedIn } from "../../../dashboard/routers";
import { registerOverviewPage } from "./overview";

export function homePages() {
  const app = createRouter();
  app.use("/", ...signedIn); // this path only, not the ones below it
  registerOverviewPage(app);
  return app;
}
