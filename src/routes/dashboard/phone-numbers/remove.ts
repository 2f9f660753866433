import type { OpenAPIHono } from "@hono/zod-openapi";
import { removePhoneNumber } from "../../../calls/phone-numbers";
import type { AppEnv } from "../../../context";
import { BASE } from "../../../dashboard/phone-numbers/views";
import { adminOnly } from "../../../dashboard/routers";

/** POST /dashboard/phone-numbers/:id/remove (admins). */
export const registerRemovePhoneNumberPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/remove", adminOnly, async (c) => {
    await removePhoneNumber({ ctx: c.var.ctx, input: { id: c.req.param("id") } });
    return c.redirect(`${BASE}?notice=removed`, 303);
  });
