import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { render } from "./shared";

/** GET /dashboard/api-keys: the workspace's keys (masked) and the create form. */
export const registerListApiKeysPage = (app: OpenAPIHono<AppEnv>) => app.get("/", (c) => render(c));
