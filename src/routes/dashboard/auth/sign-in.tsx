/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { AppEnv } from "../../../context";
import { SignIn } from "../../../dashboard/auth/views";
import { setSessionCookie } from "../../../dashboard/cookies";
import { one, validate } from "../../../dashboard/forms";
import { readForm } from "../../../dashboard/session";
import { nonceOf } from "../../../dashboard/ui";
import { ApiError } from "../../../lib/errors";
import { limitedSignIn } from "../../../middleware/sign-in-limit";
import { signIn } from "../../../sessions/service";
import { signInPath } from "./shared";

const signInForm = z.object({
  email: z.email({ pattern: z.regexes.html5Email, message: "enter the email address you were invited with" }).max(320),
  password: z.string().min(1, "enter your password").max(1024),
});

/** Only paths inside the dashboard, so `next` cannot send anyone elsewhere. */
const safeNext = (next: string | undefined) => (next && /^\/dashboard(\/[\w\-/]*)?$/.test(next) ? next : "/dashboard");

/** POST /dashboard/sign-in: the form sent; a session cookie and on to `next`, or the form again. */
export const registerSignInPage = (app: OpenAPIHono<AppEnv>) =>
  app.post(signInPath, async (c) => {
    const form = await readForm(c.req.raw);
    const next = one(form, "next");
    const checked = validate(signInForm, { email: one(form, "email"), password: one(form, "password") });
    if (!checked.ok) return c.html(<SignIn nonce={nonceOf(c)} email={one(form, "email")} next={next} errors={checked.errors} />, 400);
    let result: Awaited<ReturnType<typeof signIn>>;
    try {
      result = await limitedSignIn(c, checked.data.email, () =>
        signIn({ ctx: { db: c.var.db }, input: { ...checked.data, ttlHours: c.var.config.SESSION_TTL_HOURS } }),
      );
    } catch (err) {
      // Over the limit: the form again, saying when to retry (an error page's links would lead back here).
      if (!(err instanceof ApiError) || err.code !== "rate_limited") throw err;
      for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
      return c.html(<SignIn nonce={nonceOf(c)} email={checked.data.email} next={next} message={err.message} />, 429);
    }
    if (!result)
      return c.html(
        <SignIn nonce={nonceOf(c)} email={checked.data.email} next={next} message="That email and password do not match an account." />,
        401,
      );
    setSessionCookie(c, result.token, result.expiresAt);
    return c.redirect(safeNext(next), 303);
  });
