import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";

/** GET /dashboard: on to the Agents screen. */
export const registerLandingPage = (app: OpenAPIHono<AppEnv>) => app.get("/", (c) => c.redirect("/dashboard/agents", 303));
