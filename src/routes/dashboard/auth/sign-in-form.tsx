/** @jsxImportSource hono/jsx */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { SignIn } from "../../../dashboard/auth/views";
import { nonceOf } from "../../../dashboard/ui";
import { signInPath } from "./shared";

/** GET /dashboard/sign-in: the sign-in form (a public page). */
export const registerSignInFormPage = (app: OpenAPIHono<AppEnv>) =>
  app.get(signInPath, (c) => c.html(<SignIn nonce={nonceOf(c)} next={c.req.query("next")} />));
