// The dashboard's root, /dashboard: a signed-in user lands on the Agents screen.
import { createRouter } from "../../../context";
import { signedIn } from "../../../dashboard/routers";
import { registerLandingPage } from "./landing";

export function homePages() {
  const app = createRouter();
  app.use("/", ...signedIn); // this path only, not the ones below it
  registerLandingPage(app);
  return app;
}
