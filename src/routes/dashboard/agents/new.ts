import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/agents/form";
import { renderForm } from "./shared";

/** GET /dashboard/agents/new: the empty form. */
export const registerNewAgentPage = (app: OpenAPIHono<AppEnv>) => app.get("/new", (c) => renderForm(c, null, valuesOf(null)));
