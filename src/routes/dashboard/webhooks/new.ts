import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { valuesOf } from "../../../dashboard/webhooks/values";
import { renderNew } from "./shared";

/** GET /dashboard/webhooks/new: the empty form. */
export const registerNewEndpointPage = (app: OpenAPIHono<AppEnv>) => app.get("/new", (c) => renderNew(c, valuesOf(null)));
