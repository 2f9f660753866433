/** @jsxImportSource hono/jsx */
// Sign in, sign out, switch organization.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import type { AppEnv } from "../../context";
import { limitSignIn } from "../../middleware/ratelimit";
import { SESSION_COOKIE, signIn, signOut } from "../../sessions/service";
import { one, validate } from "./forms";
import { chooseOrganization, ORG_COOKIE, readForm, SIGN_IN_PATH } from "./session";
import { Document, ErrorSummary, type FieldErrors, nonceOf, TextField } from "./ui";

const signInForm = z.object({
  email: z.email({ pattern: z.regexes.html5Email, message: "enter the email address you were invited with" }).max(320),
  password: z.string().min(1, "enter your password").max(1024),
});

/** Only paths inside the dashboard, so `next` cannot send anyone elsewhere. */
const safeNext = (next: string | undefined) => (next && /^\/dashboard(\/[\w\-/]*)?$/.test(next) ? next : "/dashboard/agents");

const SignIn = (p: { nonce: string; email?: string; next?: string; errors?: FieldErrors; message?: string }) => (
  <Document title="Sign in" nonce={p.nonce}>
    <main class="narrow" id="main">
      <div class="card">
        <h1>Sign in</h1>
        <ErrorSummary errors={p.errors} message={p.message} />
        <form method="post" action={SIGN_IN_PATH} novalidate>
          <input type="hidden" name="next" value={p.next ?? ""} />
          <TextField name="email" label="Email" type="email" value={p.email} errors={p.errors} required />
          <TextField name="password" label="Password" type="password" errors={p.errors} required />
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
      </div>
    </main>
  </Document>
);

export function registerAuthPages(app: OpenAPIHono<AppEnv>): void {
  app.get(SIGN_IN_PATH, (c) => c.html(<SignIn nonce={nonceOf(c)} next={c.req.query("next")} />));

  app.post(SIGN_IN_PATH, async (c) => {
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
}

/** Signed-in actions (after the session middleware: CSRF-checked). */
export function registerSessionActions(app: OpenAPIHono<AppEnv>): void {
  app.post("/dashboard/sign-out", async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await signOut(c.var.db, token);
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    deleteCookie(c, ORG_COOKIE, { path: "/dashboard" });
    return c.redirect(SIGN_IN_PATH, 303);
  });

  app.post("/dashboard/switch-org", async (c) => {
    chooseOrganization(c, one(c.var.form, "organizationId"));
    return c.redirect("/dashboard/agents", 303);
  });
}
