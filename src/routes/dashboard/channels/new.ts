import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { typeOf, valuesOf } from "../../../dashboard/channels/form";
import { adminOnly } from "../../../dashboard/routers";
import { renderConnect } from "./shared";

/** GET /dashboard/channels/new?type=: the connect form (admins). */
export const registerNewChannelPage = (app: OpenAPIHono<AppEnv>) =>
  app.get("/new", adminOnly, (c) => renderConnect(c, typeOf(c.req.query("type")), valuesOf(null)));
