import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { one } from "../../../dashboard/forms";
import { chooseOrganization } from "../../../dashboard/session";

/** POST /dashboard/switch-org: another of the user's organizations. */
export const registerSwitchOrganizationPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/switch-org", async (c) => {
    chooseOrganization(c, one(c.var.form, "organizationId"));
    return c.redirect("/dashboard", 303);
  });
