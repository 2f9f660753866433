/** @jsxImportSource hono/jsx */
// Sign in (a public page), sign out and switch organization (signed-in actions, CSRF-checked by
// the page session). These sit at the dashboard's root, so each path carries its own middleware.
import { getCookie } from "hono/cookie";
import { z } from "zod";
import { createRouter } from "../../context";
import { ApiError } from "../../lib/errors";
import { limitedSignIn } from "../../middleware/sign-in-limit";
import { SESSION_COOKIE, signIn, signOut } from "../../sessions/service";
import { clearCookies, setSessionCookie } from "../cookies";
import { one, validate } from "../forms";
import { publicPage, signedIn } from "../routers";
import { chooseOrganization, readForm, SIGN_IN_PATH } from "../session";
import { nonceOf } from "../ui";
import { SignIn } from "./views";

const signInForm = z.object({
  email: z.email({ pattern: z.regexes.html5Email, message: "enter the email address you were invited with" }).max(320),
  password: z.string().min(1, "enter your password").max(1024),
});

/** Only paths inside the dashboard, so `next` cannot send anyone elsewhere. */
const safeNext = (next: string | undefined) => (next && /^\/dashboard(\/[\w\-/]*)?$/.test(next) ? next : "/dashboard/agents");

/** Mounted at the dashboard's root: /sign-in, /sign-out, /switch-org. */
export function authPages() {
  const app = createRouter();
  const signInPath = SIGN_IN_PATH.slice("/dashboard".length);

  app.use(signInPath, ...publicPage);
  app.use("/sign-out", ...signedIn);
  app.use("/switch-org", ...signedIn);

  app.get(signInPath, (c) => c.html(<SignIn nonce={nonceOf(c)} next={c.req.query("next")} />));

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

  app.post("/sign-out", async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await signOut({ ctx: { db: c.var.db }, input: { token } });
    clearCookies(c, true);
    return c.redirect(SIGN_IN_PATH, 303);
  });

  app.post("/switch-org", async (c) => {
    chooseOrganization(c, one(c.var.form, "organizationId"));
    return c.redirect("/dashboard/agents", 303);
  });

  return app;
}
