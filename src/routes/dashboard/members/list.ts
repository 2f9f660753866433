import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { render } from "./shared";

/** GET /dashboard/members: who is in the workspace (everyone). */
export const registerListMembersPage = (app: OpenAPIHono<AppEnv>) => app.get("/", (c) => render(c));
