import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { listPage } from "./shared";

/** GET /dashboard/calls: the newest calls, filtered, with the test call's form. */
export const registerListCallsPage = (app: OpenAPIHono<AppEnv>) => app.get("/", (c) => listPage(c));
