import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/voices/form";
import { renderForm } from "./shared";

/** GET /dashboard/voices/new: the empty form. */
export const registerNewVoicePage = (app: OpenAPIHono<AppEnv>) => app.get("/new", (c) => renderForm(c, null, valuesOf(null)));
