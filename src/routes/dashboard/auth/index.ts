// Sign in (a public page), sign out and switch organization (signed-in actions, CSRF-checked by
// the page session), one file per page operation. These sit at the dashboard's root, so each path
// carries its own middleware.
import { createRouter } from "../../../context";
import { publicPage, signedIn } from "../../../dashboard/routers";
import { signInPath } from "./shared";
import { registerSignInPage } from "./sign-in";
import { registerSignInFormPage } from "./sign-in-form";
import { registerSignOutPage } from "./sign-out";
import { registerSwitchOrganizationPage } from "./switch-org";

/** Mounted at the dashboard's root: /sign-in, /sign-out, /switch-org. */
export function authPages() {
  const app = createRouter();

  app.use(signInPath, ...publicPage);
  app.use("/sign-out", ...signedIn);
  app.use("/switch-org", ...signedIn);

  registerSignInFormPage(app);
  registerSignInPage(app);
  registerSignOutPage(app);
  registerSwitchOrganizationPage(app);
  return app;
}
