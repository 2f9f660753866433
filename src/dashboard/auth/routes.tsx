/** @jsxImportSource hono/jsx */
// Sign in (a public page), sign out and switch organization (signed-in actions, CSRF-checked by
// the page session). These sit at the dashboard's root, so each path carries its own middleware.
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { createRouter } from "../../context";
import { limitSignIn } from "../../middleware/ratelimit";
import { SESSION_COOKIE, signIn, signOut } from "../../sessions/service";
import { one, validate } from "../forms";
import { publicPage, signedIn } from "../routers";
import { chooseOrganization, ORG_COOKIE, readForm, SIGN_IN_PATH } from "../session";
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
    await limitSignIn(c, checked.data.email);
    const result = await signIn(c.var.db, { ...checked.data, ttlHours: c.var.config.SESSION_TTL_HOURS });
    if (!result)
      return c.html(
        <SignIn nonce={nonceOf(c)} email={checked.data.email} next={next} message="That email and password do not match an account." />,
        401,
      );
    setCookie(c, SESSION_COOKIE, result.token, {
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      secure: new URL(c.req.url).protocol === "https:",
      expires: result.expiresAt,
    });
    return c.redirect(safeNext(next), 303);
  });

  app.post("/sign-out", async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await signOut(c.var.db, token);
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    deleteCookie(c, ORG_COOKIE, { path: "/dashboard" });
    return c.redirect(SIGN_IN_PATH, 303);
  });

  app.post("/switch-org", async (c) => {
    chooseOrganization(c, one(c.var.form, "organizationId"));
    return c.redirect("/dashboard/agents", 303);
  });

  return app;
}
