// The dashboard's root, /dashboard: a signed-in user lands on the Agents screen.
import { createRouter } from "../../context";
import { signedIn } from "../routers";

export function homePages() {
  const app = createRouter();
  app.use("/", ...signedIn); // this path only, not the ones below it
  app.get("/", (c) => c.redirect("/dashboard/agents", 303));
  return app;
}
