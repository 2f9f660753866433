import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../context";
import { rotateWidgetToken } from "../../../widgets/service";
import { own } from "./shared";

/** POST /dashboard/widgets/:id/rotate-token: a new token (the old one stops). */
export const registerRotateWidgetTokenPage = (app: OpenAPIHono<AppEnv>) =>
  app.post("/:id/rotate-token", async (c) => {
    const widget = await own(c, c.req.param("id"));
    await rotateWidgetToken({ ctx: c.var.ctx, input: { id: widget.id } });
    return c.redirect(`/dashboard/widgets/${widget.id}?rotated=1`, 303);
  });
