// Sign-in / sign-out / current session for the dashboard (session cookie, HttpOnly), one file per
// operation. Sign-in is public; the other two authenticate themselves.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { registerSession } from "./session";
import { registerSignIn } from "./sign-in";
import { registerSignOut } from "./sign-out";

export function registerDashboardAuth(app: OpenAPIHono<AppEnv>): void {
  registerSignIn(app);
  registerSignOut(app);
  registerSession(app);
}
