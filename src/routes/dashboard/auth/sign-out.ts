import type { OpenAPIHono } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../../context";
import { clearCookies } from "../../../dashboard/cookies";
import { SIGN_IN_PATH } from "../../../dashboard/session";
import { SESSION_COOKIE, signOut } from "../../../sessions/service";

/** POST /dashboard/sign-out: the session ended, its cookies cleared, back to the sign-in page. */
export const registerSignOutPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/sign-out", async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await signOut({ ctx: { db: c.var.db }, input: { token } });
    clearCookies(c, true);
    return c.redirect(SIGN_IN_PATH, 303);
  });
